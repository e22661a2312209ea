"""`zizou decks list | check | new NAME | trust NAME`: the decks a session here would offer,
every problem of the deck files, a new deck from a template, and trusting a project's Python
deck.

A project's Python deck is code the repository brought: `list` and `check` run it only once
trusted, exactly as a session would.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from zizou import confined
from zizou.decks.display import signature
from zizou.decks.files import PROJECT_DECKS, Bad, Root, file_kind, read_file, roots_for
from zizou.decks.spec import DeckSet, shown_path
from zizou.errors import PathError, UsageError
from zizou.plural import counted


def _echo(text: str, err: bool = False) -> None:
    """A line out: a deck's text came with the repository, so no terminal control reaches the
    terminal."""
    from zizou.terminal_text import strip_terminal_controls

    click.echo(strip_terminal_controls(text), err=err)


cwd_option = click.option(
    "-C",
    "--cwd",
    type=click.Path(file_okay=False, path_type=Path),
    help="Project directory (default: current).",
)

TEMPLATE = """\
---
description: {description}
input:
  type: object
  properties:
    request: {{type: string, description: What to do.}}
  required: [request]
  additionalProperties: false
output:
  type: object
  properties:
    result: {{type: string}}
  required: [result]
  additionalProperties: false
# actions: [{{path: other.deck.md}}]   (decks this one may call, beside this file)
---
Say here what this deck does and how, step by step. When you are done, call `return_output`
with the `result`.
"""


@click.group(name="decks", context_settings={"help_option_names": ["-h", "--help"]})
def decks() -> None:
    """Decks are sub-agents written as files: NAME.deck.md in .zizou/decks/ (this project),
    in the decks dir of your config (every project), or built in. Each is a tool of the agent.
    """


def _root(cwd: Path | None) -> Path:
    root = (cwd or Path.cwd()).resolve()
    if not root.is_dir():
        raise UsageError(f"{root} is not a directory: pass an existing project with -C")
    return root


def _load(root: Path, extra: tuple[Path, ...] = ()) -> tuple[DeckSet, Any]:
    from zizou.decks.loader import load_decks
    from zizou.hooks.sources import TrustStore
    from zizou.user_dirs import user_config_dir

    config_dir = user_config_dir()
    store = TrustStore(config_dir)
    found = load_decks(root, config_dir, trust=store, extra=extra)
    if store.problem:
        found.warnings.append(store.problem)
    return found, store


@decks.command(name="list")
@cwd_option
def list_decks(cwd: Path | None) -> None:
    """One line a deck: name, origin, file, description and `input → output`."""
    found, _ = _load(_root(cwd))
    rows = [
        (deck.name, deck.origin, shown_path(deck.path), f"{deck.description} ({signature(deck)})")
        for deck in sorted(found.decks.values(), key=lambda d: d.name)
    ]
    if not rows:
        _echo("no decks: `zizou decks new NAME` writes one in .zizou/decks/")
    widths = [max((len(row[i]) for row in rows), default=0) for i in range(3)]
    for row in rows:
        cells = [f"{cell:<{width}}" for cell, width in zip(row, widths, strict=False)]
        _echo("  ".join([*cells, row[3]]).rstrip())
    for warning in found.warnings:
        _echo(f"warning: {warning}", err=True)
    for problem in found.problems:
        _echo(f"{problem} (left out)", err=True)


@decks.command(name="check")
@click.argument("paths", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@cwd_option
def check_decks(paths: tuple[Path, ...], cwd: Path | None) -> int:
    """Check every deck (and the deck files PATHS): each problem as `file:line: message`.
    Exit 1 when there is any, as `zizou hooks check`."""
    root = _root(cwd)
    for path in paths:
        if not path.is_file():
            raise UsageError(f"{path} is not a deck file")
    found, _ = _load(root, tuple(path.absolute() for path in paths))
    for problem in found.problems:
        _echo(str(problem))
    for warning in found.warnings:
        _echo(f"warning: {warning}")
    if found.problems:
        _echo(f"\n{counted(len(found.problems), 'problem')}")
        return 1
    _echo(f"{counted(len(found.files), 'deck')} OK")
    return 0


@decks.command(name="new")
@click.argument("name")
@cwd_option
def new_deck(name: str, cwd: Path | None) -> None:
    """Write .zizou/decks/NAME.deck.md from a template, to edit."""
    from zizou.decks.frontmatter import name_problem

    root = _root(cwd)
    why = name_problem(name)
    if why is not None:
        raise UsageError(f"cannot make the deck: {why}")
    rel = f"{PROJECT_DECKS}/{name}.deck.md"
    text = TEMPLATE.format(description=f"What {name} does, in one sentence.")
    try:
        if confined.stat(root, rel) is not None:
            raise UsageError(f"{rel} exists already: edit it, or choose another name")
        confined.make_dirs(root, PROJECT_DECKS)
        confined.atomic_write(root, rel, text.encode("utf-8"), new_mode=0o644)
    except PathError as err:
        raise UsageError(f"cannot write {rel}: {err}") from None
    _echo(rel)


@decks.command(name="trust")
@click.argument("name")
@cwd_option
def trust_deck(name: str, cwd: Path | None) -> None:
    """Trust a project's Python deck (.zizou/decks/NAME.deck.py) as it is now: a session
    here then runs it."""
    from zizou.decks.api import source_of

    root = _root(cwd)
    _, store = _load(root)
    roots, _ = roots_for(root, None)
    project = next(r for r in roots if r.origin == "project")
    path = _python_deck(name, project)
    try:
        text, digest = read_file(path, project)
    except Bad as bad:
        raise UsageError(f"{shown_path(path)}: {bad}") from None
    source = source_of(path, project, text, digest)
    assert source is not None
    status = store.status(source)
    _echo(f"{source.name}\n  sha256 {source.sha256}")
    if status == "trusted":
        _echo("already trusted as it is: nothing to do")
        return
    store.trust(source)
    again = " again, as it is now" if status == "changed" else ""
    _echo(
        f"trusted{again}: a session in {root} runs this exact content; any edit makes it "
        "untrusted until you trust it again"
    )


def _python_deck(name: str, project: Root) -> Path:
    """The project's Python deck NAME (or NAME.deck.py); a UsageError when there is none."""
    path = project.folder / Path(name if name.endswith(".deck.py") else f"{name}.deck.py").name
    try:
        if file_kind(path, project) == "file":
            return path
    except PathError as err:
        raise UsageError(f"{shown_path(path)} is refused: {err}") from None
    raise UsageError(
        f"no Python deck {name} in {shown_path(project.folder)}: only a project's Python deck "
        "(NAME.deck.py) needs trust; `zizou decks list` shows the decks"
    )


__all__ = ["decks"]
