"""`zizou sessions list`: the sessions of the current project, newest first."""

from __future__ import annotations

from pathlib import Path

import click

from zizou.sessions.store import SessionStore


@click.group(name="sessions", context_settings={"help_option_names": ["-h", "--help"]})
def sessions() -> None:
    """The conversations zizou kept for this project (resume one with `zizou -r ID`)."""


@sessions.command(name="list")
@click.option("-C", "--cwd", type=click.Path(file_okay=False, path_type=Path))
def list_sessions(cwd: Path | None) -> None:
    """List sessions: id, start time, turns, first prompt."""
    store = SessionStore((cwd or Path.cwd()).resolve())
    rows = store.list()
    if not rows:
        click.echo("no sessions in this project yet")
        return
    active = store.active_id()
    for row in rows:
        mark = "*" if row.id == active else " "
        prompt = " ".join(row.first_prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        click.echo(f"{mark} {row.id}  {row.created}  {row.turns:>3} turns  {prompt}")
