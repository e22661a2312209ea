"""`zizou undo`: put back the files the last turn of a session changed, and take the turn out of
the conversation, from the command line (the app has /undo). From a subdirectory it finds the
project as `zizou -c` does.

It refuses, changing nothing, when a file changed outside zizou since the turn (or its saved
copy is gone), and names each one; `--force` overwrites those changes (their bytes are kept, so
redo brings them back) and leaves the files it has no copy of. The files the turn's commands
changed are restored too; what no snapshot keeps (ignored files, what lies outside the project)
is named, never claimed. `--dry-run` shows every file and what would happen to it, and changes
nothing. Exit codes: 0 undone (or listed, or shown), 1 a file could not be written back (the
others were), 2 nothing to undo or refused.
"""

from __future__ import annotations

from pathlib import Path

import click

from zizou.checkpoints.plans import (
    PLANNED_WORDS,
    UNDONE_WORDS,
    FileOutcome,
    TurnInfo,
    TurnPreview,
    UndoResult,
    caveats,
    reason,
)
from zizou.checkpoints.undo import Checkpoints
from zizou.errors import UsageError
from zizou.sessions import SessionStore, find_project

DONE, PLANNED = UNDONE_WORDS, PLANNED_WORDS


@click.command(name="undo", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--session",
    "session_id",
    metavar="ID",
    help="The session (default: the active one, the one zizou last ran; undo never goes on "
    "into another session on its own).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Undo even when a file changed outside zizou since the turn: those changes are "
    "overwritten (and kept, for redo).",
)
@click.option("--list", "list_turns", is_flag=True, help="List the turns and their files.")
@click.option(
    "--dry-run", is_flag=True, help="Show what undo would do to each file; change nothing."
)
@click.option("-C", "--cwd", type=click.Path(file_okay=False, path_type=Path))
def undo(
    session_id: str | None, force: bool, list_turns: bool, dry_run: bool, cwd: Path | None
) -> int:
    """Undo the last turn of a session: put back the files it changed (those its commands
    changed too) and remove it from the conversation. Exit 0 undone, 1 a file could not be
    written back, 2 nothing to undo or refused (a file changed outside zizou since the turn:
    --force overwrites it)."""
    root = find_project((cwd or Path.cwd()).resolve())
    store = SessionStore(root)
    chosen = store.resolve(session_id) if session_id else store.marked_active()
    chosen = chosen or store.active_id()  # a project whose active session is not recorded
    if chosen is None:
        raise UsageError("there is no session in this project: nothing to undo")
    checkpoints = Checkpoints.open(root, chosen)
    try:
        if list_turns:
            _list(chosen, checkpoints.turns())
            return 0
        preview = checkpoints.undo_preview()
        if preview is None:
            raise UsageError(_nothing_left(chosen, checkpoints, named=session_id is not None))
        if dry_run:
            _preview(chosen, preview)
            return 0
        result = checkpoints.undo(force=force)
    finally:
        if checkpoints.writer is not None:
            checkpoints.writer.close()
    _report(chosen, result)
    return 1 if result.failed else 0


def _nothing_left(session_id: str, checkpoints: Checkpoints, *, named: bool) -> str:
    """Why there is no turn to undo in the session; an older session is only ever named."""
    if checkpoints.history.floor:
        why = "its conversation was compacted since its last turn"
    elif checkpoints.history.redo:
        why = "its turns are all undone"
    else:
        why = "it has no turns"
    which = "" if named else " (the active one)"
    text = f"nothing left to undo in session {session_id}{which}: {why}"
    if not named:
        text += (
            "; undo never goes on into an older session: name one with "
            "`zizou undo --session ID` (`zizou sessions list` shows them)"
        )
    return text


def _list(session_id: str, turns: list[TurnInfo]) -> None:
    count = f"{len(turns)} turn{'s' * (len(turns) != 1)}"
    click.echo(f"session {session_id}: {count}; `zizou undo` undoes the last one")
    for info in turns:
        files = ", ".join(info.files) or "no files changed"
        click.echo(f"  {info.turn + 1:>3}  {_quoted(info.text)}  [{files}]")
        if info.commands:
            click.echo(f"       ran: {_short('; '.join(info.commands))}")
        for line in caveats(info):
            click.echo(f"       {line}")


def _preview(session_id: str, preview: TurnPreview) -> None:
    """Every file of the last turn and what undo would do to it; nothing is changed."""
    count = f"{len(preview.files)} file{'s' * (len(preview.files) != 1)}"
    click.echo(
        f"undo would undo turn {preview.turn + 1} of session {session_id}: "
        f"{_quoted(preview.text)} ({count}; nothing was changed)"
    )
    for plan in preview.files:
        why = f": {reason(plan)}" if plan.blocked else ""
        click.echo(f"  {PLANNED[plan.action]:<12}  {plan.path}{why}")
    if preview.commands:
        click.echo(f"ran: {_short('; '.join(preview.commands))}")
    for line in caveats(preview):
        click.echo(line)
    if preview.conflicts:
        click.echo("undo would refuse: `zizou undo --force` overwrites or skips the files marked")


def _report(session_id: str, result: UndoResult) -> None:
    [turn] = result.turns
    click.echo(f"undid turn {turn.turn + 1} of session {session_id}: {_quoted(turn.text)}")
    if not result.files:
        click.echo("  it changed no files")
    for outcome in result.files:
        click.echo(_line(outcome))
    for line in caveats(turn):
        click.echo(line)


def _line(outcome: FileOutcome) -> str:
    if not outcome.ok:
        return f"  not restored  {outcome.path}: {outcome.note}"
    note = f" ({outcome.note})" if outcome.note else ""
    return f"  {DONE[outcome.action]:<12}  {outcome.path}{note}"


def _short(text: str, width: int = 72) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _quoted(text: str) -> str:
    return repr(_short(text))


__all__ = ["undo"]
