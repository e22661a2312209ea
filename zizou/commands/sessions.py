"""`zizou sessions list`: the sessions of the current project, newest first; from a
subdirectory, those of the project it is in (`zizou.sessions.find_project`)."""

from __future__ import annotations

from pathlib import Path

import click

from zizou.plural import counted
from zizou.sessions import SessionStore, find_project


@click.group(name="sessions", context_settings={"help_option_names": ["-h", "--help"]})
def sessions() -> None:
    """The conversations zizou kept for this project (resume one with `zizou -r ID`)."""


@sessions.command(name="list")
@click.option("-C", "--cwd", type=click.Path(file_okay=False, path_type=Path))
def list_sessions(cwd: Path | None) -> None:
    """List sessions: id, start time, turns, first prompt."""
    here = (cwd or Path.cwd()).resolve()
    root = find_project(here)
    store = SessionStore(root)
    rows = store.list()
    if not rows:
        click.echo("no sessions in this project yet")
        return
    if root != here:
        click.echo(f"sessions of {root}")
    active = store.active_id()
    for row in rows:
        mark = "*" if row.id == active else " "
        prompt = " ".join(row.first_prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        turns = counted(row.turns, "turn")
        click.echo(f"{mark} {row.id}  {row.created}  {turns:>9}  {prompt}")
