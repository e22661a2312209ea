"""The project's saved "always allow" command rules, in `<project>/.zizou/permissions.json`.

When the user answers a command's approval with "always", the TUI saves the rule here, and the
launcher loads the saved rules into `Rules.bash_prefixes` at start-up, so a rule outlives the
session but never leaves the project. `.zizou/` is a protected path: the model cannot write
this file without asking.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from zizou.errors import UsageError
from zizou.paths import PROJECT_DIR_NAME, project_dir

FILE_NAME = "permissions.json"


class _RulesFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    bash_prefixes: list[str] = []


def rules_path(root: Path) -> Path:
    return root / PROJECT_DIR_NAME / FILE_NAME


def load_prefixes(root: Path) -> list[str]:
    """The saved command prefixes; none when the file does not exist."""
    path = rules_path(root)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"cannot read {path}: {exc}; fix or remove the file") from exc
    try:
        return list(_RulesFile.model_validate(data).bash_prefixes)
    except ValidationError as exc:
        raise UsageError(f"{path} is not a valid rules file ({exc}); fix or remove it") from exc


def save_prefix(root: Path, prefix: str) -> bool:
    """Add `prefix` to the saved rules; False when it was already there."""
    prefixes = load_prefixes(root)
    if prefix in prefixes:
        return False
    _write(root, [*prefixes, prefix])
    return True


def remove_prefix(root: Path, prefix: str) -> bool:
    """Remove `prefix` from the saved rules; False when it was not saved."""
    prefixes = load_prefixes(root)
    if prefix not in prefixes:
        return False
    _write(root, [p for p in prefixes if p != prefix])
    return True


def _write(root: Path, prefixes: list[str]) -> None:
    directory = project_dir(root)
    text = _RulesFile(bash_prefixes=prefixes).model_dump_json(indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".permissions-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        Path(tmp).replace(directory / FILE_NAME)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["load_prefixes", "remove_prefix", "rules_path", "save_prefix"]
