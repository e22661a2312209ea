"""What undo and redo would do, in types the front ends show: the turns of a conversation, and
for each file of a turn whether it is restored, deleted or brought back, and whether it changed
outside zizou since (then undo refuses unless forced).

A file is planned from hashes alone: the one zizou left (the turn's `after`, for undo), the one
it goes back to (`before`), and the one it has now. A file already as it should be is left
alone; one whose bytes are neither is "changed outside zizou" (an editor, a command, another
program); one whose saved copy is gone (pruned, or never kept: too large) cannot be put back.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from zizou.agent.permissions import RUN_BASH
from zizou.checkpoints.history import FileChange
from zizou.contracts.messages import (
    ERROR_PREFIX,
    AssistantMessage,
    Message,
    ToolMessage,
    UserMessage,
)
from zizou.errors import UsageError
from zizou.sessions.records import CommandNote, UnkeptPath

# restore: write the bytes it had; delete: the turn created it; recreate: the turn deleted it;
# none: it already is as it should be.
Action = Literal["restore", "delete", "recreate", "none"]
GONE = "its saved copy is gone (pruned from .zizou/checkpoints/)"
UNSURE = (
    "it changed while a command ran, but maybe not by the command: without a copy-on-write "
    "layer zizou cannot tell (you, an editor or another zizou may have changed it)"
)
# How the result of a call that never ran starts: refused by a rule or the mode, or denied.
REFUSED = tuple(
    ERROR_PREFIX + start
    for start in ("refused: ", "the user did not approve this call", f"{RUN_BASH} is not offered")
)


@dataclass(frozen=True)
class TurnInfo:
    """A turn of the conversation, for a list to pick from (/rewind, `zizou undo --list`):
    its index (pass it to `rewind`), the user's message, the files it changed, the commands it
    ran (see `TurnPreview` for the rest)."""

    turn: int
    text: str
    files: tuple[str, ...]
    commands: tuple[str, ...]
    not_undone: tuple[str, ...] = ()
    unkept: tuple[UnkeptPath, ...] = ()
    more_unkept: int = 0


@dataclass(frozen=True)
class FilePlan:
    """What undo (or redo) does to one file. `outside`: its bytes now are not the ones zizou
    left, so it changed outside zizou since; `problem`: why it cannot be put back at all."""

    path: str
    action: Action
    outside: bool = False
    problem: str | None = None
    target: str | None = None  # the hash it gets (None: it is deleted)
    mode: int | None = None  # the permission bits a file brought back gets
    unsure: bool = False  # it changed while a command ran, maybe not by the command

    @property
    def blocked(self) -> bool:
        """Undo refuses it unless forced (and, forced, skips it when it has a problem)."""
        return self.outside or self.unsure or self.problem is not None


@dataclass(frozen=True)
class TurnPreview:
    """One turn as undo (or redo) would handle it: the user's message, each file's plan (the
    files its commands changed among them), and the commands it ran: those whose changes stay
    (`not_undone`: the user's own `!commands`, and any whose files could not be kept, with
    why), and the paths its commands changed that undo cannot restore (`unkept`, and how many
    more were not listed)."""

    turn: int
    text: str
    files: tuple[FilePlan, ...]
    commands: tuple[str, ...]
    not_undone: tuple[str, ...] = ()
    unkept: tuple[UnkeptPath, ...] = ()
    more_unkept: int = 0

    @property
    def conflicts(self) -> tuple[FilePlan, ...]:
        return tuple(plan for plan in self.files if plan.blocked)


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file: `ok`, or why it was left as it was (`note`)."""

    path: str
    action: Action
    ok: bool
    note: str = ""


@dataclass(frozen=True)
class UndoResult:
    """The turns undone (latest first) or redone, and what happened to each file."""

    turns: tuple[TurnPreview, ...]
    files: tuple[FileOutcome, ...]

    @property
    def failed(self) -> tuple[FileOutcome, ...]:
        return tuple(outcome for outcome in self.files if not outcome.ok)


class UndoError(UsageError):
    """Nothing to undo or redo (exit 2); the message says why."""


class UndoRefused(UndoError):
    """A file changed outside zizou since the turn, or cannot be put back: nothing was changed.
    `turns` are the previews; their `conflicts` name the files."""

    def __init__(self, turns: Sequence[TurnPreview], verb: str = "undo") -> None:
        self.turns = tuple(turns)
        self.conflicts = tuple(plan for turn in self.turns for plan in turn.conflicts)
        named = "; ".join(f"{plan.path} ({reason(plan)})" for plan in self.conflicts)
        how = " (`zizou undo --force`)" if verb == "undo" else ""
        super().__init__(
            f"nothing was changed: {verb} would overwrite or skip these files: {named}. Look at "
            f"them, then {verb} with force to go ahead{how}"
        )


def reason(plan: FilePlan) -> str:
    """Why a blocked file is blocked, in a person's words."""
    if plan.problem is not None:
        return plan.problem
    if plan.unsure and not plan.outside:
        return UNSURE
    return "changed outside zizou since the turn"


def plan_file(
    change: FileChange,
    now: str | None,
    unreadable: str | None,
    *,
    undo: bool,
    has: Callable[[str], bool],
) -> FilePlan:
    """The plan for one file whose bytes now hash to `now` (None: it does not exist), or that
    cannot be read (`unreadable`, why)."""
    source, target = (change.after, change.before) if undo else (change.before, change.after)
    mode = change.mode if undo else None
    outside = unreadable is not None or now != source
    if undo and change.unsaved is not None:
        why = f"its bytes before the turn were not kept: {change.unsaved}"
        return FilePlan(change.path, "restore", outside, why, target, mode)
    if unreadable is None and now == target:
        return FilePlan(change.path, "none", target=target, mode=mode)
    action: Action = "delete" if target is None else "recreate" if now is None else "restore"
    if unreadable is not None:
        action = "restore" if target is not None else "delete"
    problem = GONE if target is not None and not has(target) else None
    unsure = undo and change.unsure
    return FilePlan(change.path, action, outside, problem, target, mode, unsure)


@dataclass(frozen=True)
class Run:
    """A turn's place in the conversation: its messages `[start:end]`, and the indexes of its
    user messages among all the user messages (`first`..`last`; `last` names the turn)."""

    start: int
    end: int
    first: int
    last: int


def runs(records: Sequence[Message]) -> list[Run]:
    """The turns of a conversation: each starts with its user messages (a `!command` shared
    goes with the message that follows it) and ends where the next turn starts."""
    found: list[Run] = []
    users = -1
    for index, record in enumerate(records):
        if not isinstance(record, UserMessage) or not record.from_user:
            continue  # a checks report belongs to the turn it came in
        users += 1
        if found and found[-1].end == index:  # right after the run's last user message
            last = found[-1]
            found[-1] = Run(last.start, index + 1, last.first, users)
        else:
            found.append(Run(index, index + 1, users, users))
    ends = [run.start for run in found[1:]] + [len(records)]
    return [Run(run.start, end, run.first, run.last) for run, end in zip(found, ends, strict=False)]


def users(records: Iterable[Message]) -> int:
    """How many user messages there are (the next turn's index, once its message is added)."""
    return sum(1 for record in records if isinstance(record, UserMessage) and record.from_user)


def user_text(records: Iterable[Message]) -> str:
    """The turn's last user message: what was asked."""
    texts = [r.content for r in records if isinstance(r, UserMessage) and r.from_user]
    return texts[-1] if texts else ""


def commands(records: Iterable[Message]) -> tuple[str, ...]:
    """The commands a turn ran: the model's run_bash calls and the `!commands` the user
    shared."""
    model, shared = _ran(records)
    return (*(f"!{command}" for command in shared), *model) if shared else tuple(model)


def _ran(records: Iterable[Message]) -> tuple[list[str], list[str]]:
    """The model's commands that ran (not refused), in order; the user's `!commands`."""
    model: dict[str, str] = {}  # by call id
    shared: list[str] = []
    for record in records:
        if isinstance(record, UserMessage) and record.shell is not None:
            shared.append(record.shell.command)
        elif isinstance(record, AssistantMessage):
            model.update(
                (c.id, _command(c.arguments)) for c in record.tool_calls if c.name == RUN_BASH
            )
        elif isinstance(record, ToolMessage) and record.content.startswith(REFUSED):
            model.pop(record.tool_call_id, None)  # it never ran
    return list(model.values()), shared


@dataclass(frozen=True)
class Ran:
    """What a turn's commands did, as undo sees it (see `TurnPreview`)."""

    commands: tuple[str, ...]
    not_undone: tuple[str, ...] = ()
    unkept: tuple[UnkeptPath, ...] = ()
    more_unkept: int = 0


def ran(records: Sequence[Message], notes: Sequence[CommandNote]) -> Ran:
    """The turn's commands, from its messages and its `command` lines (`notes`: the commands
    that were snapshotted, a deck's among them). A model's command with no line (commands not
    watched, or a session from before they were) is one whose changes stay."""
    model, shared = _ran(records)
    watched = Counter(note.command for note in notes)
    not_undone = [f"!{command} (your own command)" for command in shared]
    for command in model:
        if watched[command] > 0:
            watched[command] -= 1
        else:
            not_undone.append(command)
    not_undone += [f"{note.command} ({note.problem})" for note in notes if note.problem]
    extra = [note.command for note in notes if note.command not in model]
    return Ran(
        (*commands(records), *extra),
        tuple(not_undone),
        tuple(path for note in notes for path in note.unkept),
        sum(note.more for note in notes),
    )


WHY = {
    "ignored": "ignored",
    "link": "a symbolic link",
    "repository": "a nested git repository",
    "name": "a name undo does not write",
}
SHOWN_UNKEPT = 8


def caveats(turn: TurnInfo | TurnPreview, verb: str = "undo") -> tuple[str, ...]:
    """What undo does not restore of the turn's commands, in a person's words: the paths they
    changed that no snapshot keeps, the commands whose changes stay, and what lies outside the
    project's files."""
    lines: list[str] = []
    if (turn.unkept or turn.more_unkept) and verb != "redo":  # redo has nothing of them to do
        named = [f"{u.path} ({WHY[u.why]}, {u.change})" for u in turn.unkept[:SHOWN_UNKEPT]]
        more = len(turn.unkept) - SHOWN_UNKEPT + turn.more_unkept
        named += [f"{more} more"] if more > 0 else []
        lines.append(f"not restored, no snapshot keeps them: {', '.join(named)}")
    if turn.not_undone:
        what = "not run again" if verb == "redo" else "not undone (their changes stay)"
        lines.append(f"commands {what}: {'; '.join(turn.not_undone)}")
    if turn.commands and verb != "redo":
        lines.append(
            "what the commands changed outside the project's files (other directories, "
            "databases, services) is not undone"
        )
    return tuple(lines)


def _command(arguments: str) -> str:
    try:
        command = json.loads(arguments).get("command")
    except (ValueError, AttributeError):
        command = None
    return command if isinstance(command, str) else arguments


# What undo did to a file, what redo did, and what undo would do: the words every front end
# uses (the app's notice, `zizou undo`, an editor's /undo).
UNDONE_WORDS = {
    "restore": "restored",
    "delete": "deleted",  # the turn created it
    "recreate": "brought back",  # the turn deleted it
    "none": "unchanged",
}
REDONE_WORDS = {"restore": "changed again", "delete": "deleted again", "recreate": "made again"}
PLANNED_WORDS = {
    "restore": "restore",
    "delete": "delete",
    "recreate": "bring back",
    "none": "leave",
}


__all__ = [
    "PLANNED_WORDS",
    "REDONE_WORDS",
    "UNDONE_WORDS",
    "WHY",
    "Action",
    "FileOutcome",
    "FilePlan",
    "TurnInfo",
    "TurnPreview",
    "UndoError",
    "UndoRefused",
    "UndoResult",
    "caveats",
    "commands",
    "plan_file",
    "ran",
    "runs",
    "user_text",
    "users",
]
