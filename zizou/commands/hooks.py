"""`zizou hooks list | trust PATH | check`: the hooks a session here would load, trusting a
project's Python hook, and checking every hook without starting a session.

A project's Python hook is code the repository brought: `check` compiles it but runs it only
once trusted, exactly as a session would.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

import click

from zizou.config.project_dir import project_dir
from zizou.errors import UsageError
from zizou.hooks.runtime import HookSource
from zizou.hooks.sources import (
    HASH_CHARS,
    PROJECT_HOOKS,
    TrustStore,
    discover,
    needs_trust,
    user_hooks_dir,
)
from zizou.plural import counted
from zizou.user_dirs import user_config_dir

STATUS_WORDS = {
    "trusted": "trusted",
    "untrusted": "untrusted",
    "changed": "changed since trusted",
    "no trust needed": "no trust needed",
}

cwd_option = click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)


@click.group(name="hooks", context_settings={"help_option_names": ["-h", "--help"]})
def hooks() -> None:
    """Hooks shape each model step: Python or Markdown files in .zizou/hooks/ (this project)
    or in the hooks dir of your config (every project).

    A project's Python hook runs only once you trust its exact content: read it, then
    `zizou hooks trust PATH`; any later edit needs trusting again.
    """


def _root(cwd: Path | None) -> Path:
    return project_dir(cwd)


def _found(root: Path) -> tuple[list[HookSource], TrustStore]:
    """The hooks a session in `root` would find (the hook commands of Claude Code's settings
    files too), and the trust store; warnings to stderr."""
    from zizou.config.claude_setup import settings_hook_sources

    config_dir = user_config_dir()
    sources, warnings = discover(root, config_dir)
    commands, problems = settings_hook_sources(root)
    sources += commands
    warnings += problems
    store = TrustStore(config_dir)
    for warning in warnings:
        click.echo(f"warning: {warning}", err=True)
    if store.problem:
        click.echo(f"warning: {store.problem}", err=True)
    return sources, store


@hooks.command(name="list")
@cwd_option
def list_hooks(cwd: Path | None) -> None:
    """One line a hook: name, kind, origin, trust, and a Python hook's SHA-256 (its start)."""
    root = _root(cwd)
    sources, store = _found(root)
    if not sources:
        folder = user_hooks_dir(user_config_dir())
        click.echo(
            f"no hooks: put *.py or *.md hook files in {PROJECT_HOOKS}/ (this project) or in "
            f"{folder}/ (every project)"
        )
        return
    rows = [
        (
            source.name,
            source.kind,
            source.origin,
            STATUS_WORDS[store.status(source)],
            f"sha256 {source.sha256[:HASH_CHARS]}" if source.kind != "markdown" else "",
        )
        for source in sources
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)]
        click.echo("  ".join([*cells, row[4]]).rstrip())
    waiting = [s for s in sources if needs_trust(s) and not store.is_trusted(s)]
    if waiting:
        click.echo(
            f"\n{len(waiting)} project hook(s) will not run until trusted: read each, then "
            "`zizou hooks trust PATH`"
        )


@hooks.command(name="trust")
@click.argument("path", type=click.Path(path_type=Path))
@cwd_option
def trust_hook(path: Path, cwd: Path | None) -> None:
    """Trust a project's Python hook, or a hook command of its .claude/settings.json, as it
    is now: a session here then runs it. PATH is relative to the current directory or to the
    project (a settings hook: its name, `.claude/settings.json#PreToolUse.1`)."""
    root = _root(cwd)
    sources, store = _found(root)
    source = _pick(path, root, sources)
    status = store.status(source)
    click.echo(f"{source.name}\n  sha256 {source.sha256}")
    if status == "trusted":
        click.echo("already trusted as it is: nothing to do")
        return
    store.trust(source)
    again = " again, as it is now" if status == "changed" else ""
    click.echo(
        f"trusted{again}: a session in {root} runs this exact content; any edit makes it "
        "untrusted until you trust it again"
    )


def _pick(path: Path, root: Path, sources: list[HookSource]) -> HookSource:
    """The discovered hook `path` names (relative to the current directory, else to the
    project); a UsageError when it names no project Python hook."""
    bases = [Path.cwd(), root] if not path.is_absolute() else [Path("/")]
    wanted: set[Path] = set()
    for base in bases:
        candidate = base / path
        wanted |= {Path(os.path.normpath(candidate)), candidate.resolve()}
    match = next((s for s in sources if s.path is not None and s.path in wanted), None)
    if match is None:
        raise UsageError(
            f"{path} is not one of this project's hooks (Python files in {root / PROJECT_HOOKS}); "
            "`zizou hooks list` shows them"
        )
    if match.origin != "project":
        raise UsageError(f"{match.name} is your own hook: it needs no trust")
    if match.kind == "markdown":
        raise UsageError(f"{match.name} is a Markdown hook, with no code: it needs no trust")
    return match


@hooks.command(name="check")
@cwd_option
def check_hooks(cwd: Path | None) -> int:
    """Check every hook: Markdown is parsed, Python compiled, and loaded when trusted (an
    untrusted hook is not run). Exit 1 when any has a problem."""
    root = _root(cwd)
    config_dir = user_config_dir()
    sources, warnings = discover(root, config_dir)
    store = TrustStore(config_dir)
    problems = [f"warning: {warning}" for warning in warnings]
    if store.problem:
        problems.append(f"warning: {store.problem}")
    for line in problems:
        click.echo(line)
    if not sources and not problems:
        click.echo("no hooks to check (see `zizou hooks list`)")
    for source in sources:
        found = _check(source, store)
        problems += found
        if not found:
            click.echo(f"{source.name}: ok{_note(source, store)}")
        for problem in found:
            click.echo(problem)
    if problems:
        click.echo(f"\n{counted(len(problems), 'problem')}")
        return 1
    return 0


def _note(source: HookSource, store: TrustStore) -> str:
    if source.kind != "python":
        return ""
    status = store.status(source)
    if status in ("untrusted", "changed"):
        why = "untrusted" if status == "untrusted" else "changed since trusted"
        return f" (compiles; not run: {why})"
    return " (compiles and loads)"


def _check(source: HookSource, store: TrustStore) -> list[str]:
    """The problems of one hook, each a line naming it."""
    if source.kind == "markdown":
        from zizou.hooks.markdown import check_markdown

        return [f"{source.name}: {problem}" for problem in check_markdown(source.name, source.text)]
    filename = str(source.path or source.name)
    try:
        compile(source.text, filename, "exec")
    except SyntaxError as err:
        where = f":{err.lineno}" if err.lineno else ""
        return [f"{source.name}{where}: syntax error: {err.msg}"]
    except (ValueError, MemoryError, RecursionError) as err:  # null bytes; nested too deep
        return [f"{source.name}: cannot be compiled: {type(err).__name__} {err}".rstrip()]
    if not store.is_trusted(source):
        return []
    from zizou.hooks.api import StateStore
    from zizou.hooks.runtime import load_python

    try:
        load_python(source, StateStore())
    except (Exception, SystemExit) as exc:
        return [f"{source.name}{_line_of(exc, filename)}: failed to load: {_describe(exc)}"]
    return []


def _line_of(exc: BaseException, filename: str) -> str:
    """`:N`, the line of the hook file where `exc` was raised (its deepest frame there)."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == filename:
            line = frame.lineno
    return f":{line}" if line else ""


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


__all__ = ["hooks"]
