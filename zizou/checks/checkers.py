"""The checkers a user turns on: commands per language, and presets for the usual ones.

`config.toml` (the user's) says what runs:

    [checks]
    when = "turn"            # after the turn's edits ("turn"), or after each edit ("edit")
    budget_s = 5             # a checker still running after this is stopped, and said so
    presets = ["ruff", "mypy"]
    commands = { go = "staticcheck {file}" }   # a language (as the repo map names it): argv

A preset runs only in a project that already has it: its configuration, and its program in the
project (`.venv/bin`, `node_modules/.bin`) or on PATH. The project's own `.zizou/checks.toml`
may narrow this (turn the syntax check off, keep fewer presets, a shorter budget, another
`when`) but never adds a command: commands come from the user's own config alone.
"""

from __future__ import annotations

import shlex
import shutil
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from zizou import confined
from zizou.errors import PathError
from zizou.repomap.tags import LANGUAGES

PresetName = Literal["ruff", "mypy", "tsc", "eslint", "go vet"]
When = Literal["turn", "edit"]
Budget = Annotated[float, Field(gt=0, le=600)]
PROJECT_FILE = ".zizou/checks.toml"
PROJECT_FILE_BYTES = 64 * 1024
PYPROJECT_BYTES = 1 << 20


class CheckSettings(BaseModel):
    """The `[checks]` table of config.toml; the defaults are the ones in effect."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    syntax: bool = True  # the syntax check of every change (tree-sitter, Python's compiler)
    refuse_breaking: bool = False  # refuse a write that leaves a file that parsed unparsable
    when: When = "turn"
    budget_s: Budget = 5.0
    presets: tuple[PresetName, ...] = ()
    commands: dict[str, str] = Field(default_factory=dict)
    rounds: int = Field(default=2, ge=0, le=10)  # reports sent back per turn ("turn")

    @model_validator(mode="after")
    def _known_languages(self) -> CheckSettings:
        for language, command in self.commands.items():
            if language not in LANGUAGES:
                known = ", ".join(LANGUAGES)
                raise ValueError(f"commands: {language!r} is not a language ({known})")
            if "{file}" not in command:
                raise ValueError(f"commands.{language}: the command must name {{file}}")
        return self


class ProjectChecks(BaseModel):
    """`.zizou/checks.toml`: what a project may say (each can only narrow)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    syntax: bool | None = None
    when: When | None = None
    budget_s: Budget | None = None
    presets: tuple[PresetName, ...] | None = None
    commands: dict[str, str] | None = None  # read only to say it is not used


@dataclass(frozen=True)
class Checker:
    """One checker as it will run: its name, the languages it checks, its argv with `{file}`."""

    name: str
    languages: frozenset[str]
    argv: tuple[str, ...]

    def command(self, rel: str) -> list[str]:
        """The argv for the file `rel`: `{file}` is its path, `{dir}` its folder's."""
        folder = rel.rpartition("/")[0] or "."
        return [part.replace("{file}", rel).replace("{dir}", folder) for part in self.argv]


@dataclass(frozen=True)
class _Preset:
    languages: frozenset[str]
    program: str
    args: tuple[str, ...]
    configured: Callable[[Path], bool]
    folders: tuple[str, ...]  # where in the project its program lives, before PATH


def _has(*names: str) -> Callable[[Path], bool]:
    return lambda root: any((root / name).is_file() for name in names)


def _pyproject(table: str, *files: str) -> Callable[[Path], bool]:
    def found(root: Path) -> bool:
        if _has(*files)(root):
            return True
        try:  # by fd: a FIFO or a link out planted as pyproject.toml is not followed
            data = confined.read_head(root, "pyproject.toml", PYPROJECT_BYTES)
        except (OSError, PathError):
            return False
        return f"[tool.{table}".encode() in data

    return found


PY, JS = frozenset({"python"}), frozenset({"javascript", "typescript", "tsx"})
PRESETS: dict[str, _Preset] = {
    "ruff": _Preset(
        PY,
        "ruff",
        ("check", "--output-format=concise", "--no-fix", "--quiet", "{file}"),
        _pyproject("ruff", "ruff.toml", ".ruff.toml"),
        (".venv/bin", "venv/bin"),
    ),
    "mypy": _Preset(
        PY,
        "mypy",
        ("--show-column-numbers", "--no-error-summary", "--no-color-output", "{file}"),
        _pyproject("mypy", "mypy.ini", ".mypy.ini"),
        (".venv/bin", "venv/bin"),
    ),
    "tsc": _Preset(
        frozenset({"typescript", "tsx"}),
        "tsc",
        ("--noEmit", "--pretty", "false", "-p", "."),
        _has("tsconfig.json"),
        ("node_modules/.bin",),
    ),
    "eslint": _Preset(
        JS,
        "eslint",
        ("--format", "unix", "{file}"),
        _has(
            "eslint.config.js",
            "eslint.config.mjs",
            "eslint.config.cjs",
            "eslint.config.ts",
            ".eslintrc",
            ".eslintrc.js",
            ".eslintrc.cjs",
            ".eslintrc.json",
            ".eslintrc.yml",
            ".eslintrc.yaml",
        ),
        ("node_modules/.bin",),
    ),
    "go vet": _Preset(frozenset({"go"}), "go", ("vet", "./{dir}"), _has("go.mod"), ()),
}


def checkers_for(settings: CheckSettings, root: Path, path: str | None = None) -> list[Checker]:
    """The checkers that run in the project at `root`: the user's commands, then each preset
    the project has (and whose program is found), in the order the settings name them."""
    found = [
        Checker(language, frozenset({language}), tuple(shlex.split(command)))
        for language, command in settings.commands.items()
    ]
    for name in settings.presets:
        preset = PRESETS[name]
        program = _program(root, preset, path)
        if program is not None and preset.configured(root):
            found.append(Checker(name, preset.languages, (program, *preset.args)))
    return found


def _program(root: Path, preset: _Preset, path: str | None) -> str | None:
    for folder in preset.folders:
        candidate = root / folder / preset.program
        if candidate.is_file():
            return str(candidate)
    return shutil.which(preset.program, path=path)


def narrowed(settings: CheckSettings, root: Path) -> tuple[CheckSettings, list[str]]:
    """`settings` as the project's `.zizou/checks.toml` narrows them, and what to warn of."""
    try:
        info = confined.stat(root, PROJECT_FILE)
        if info is None:
            return settings, []
        data = confined.read_head(root, PROJECT_FILE, PROJECT_FILE_BYTES)
        table = tomllib.loads(data.decode("utf-8")).get("checks", {})
        project = ProjectChecks.model_validate(table)
    except (OSError, PathError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        return settings, [f"{PROJECT_FILE} is not used: {err}"]
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors())
        return settings, [f"{PROJECT_FILE} is not used: {problems}"]
    warnings = []
    if project.commands:
        warnings.append(
            f"{PROJECT_FILE} names commands ({', '.join(project.commands)}); a project cannot "
            "add commands to run: copy those you trust into [checks.commands] of your config.toml"
        )
    update: dict[str, object] = {}
    if project.syntax is False:
        update["syntax"] = False
    if project.when is not None:
        update["when"] = project.when
    if project.budget_s is not None:
        update["budget_s"] = min(project.budget_s, settings.budget_s)
    if project.presets is not None:
        update["presets"] = tuple(p for p in settings.presets if p in project.presets)
    return settings.model_copy(update=update), warnings


__all__ = [
    "PRESETS",
    "PROJECT_FILE",
    "CheckSettings",
    "Checker",
    "checkers_for",
    "narrowed",
]
