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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from zizou.checkpoints.history import FileChange
from zizou.core.messages import AssistantMessage, Message, UserMessage
from zizou.core.permissions import RUN_BASH
from zizou.errors import UsageError

# restore: write the bytes it had; delete: the turn created it; recreate: the turn deleted it;
# none: it already is as it should be.
Action = Literal["restore", "delete", "recreate", "none"]
GONE = "its saved copy is gone (pruned from .zizou/checkpoints/)"


@dataclass(frozen=True)
class TurnInfo:
    """A turn of the conversation, for a list to pick from (/rewind, `zizou undo --list`):
    its index (pass it to `rewind`), the user's message, the files it changed and the commands
    it ran (which undo does not undo)."""

    turn: int
    text: str
    files: tuple[str, ...]
    commands: tuple[str, ...]


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

    @property
    def blocked(self) -> bool:
        """Undo refuses it unless forced (and, forced, skips it when it has a problem)."""
        return self.outside or self.problem is not None


@dataclass(frozen=True)
class TurnPreview:
    """One turn as undo (or redo) would handle it: the user's message, each file's plan, and
    the commands it ran, which are not undone."""

    turn: int
    text: str
    files: tuple[FilePlan, ...]
    commands: tuple[str, ...]

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
    return FilePlan(change.path, action, outside, problem, target, mode)


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
    """The commands a turn ran, which undo does not undo: the model's run_bash calls and the
    `!commands` the user shared."""
    found: list[str] = []
    for record in records:
        if isinstance(record, UserMessage) and record.shell is not None:
            found.append(f"!{record.shell.command}")
        elif isinstance(record, AssistantMessage):
            found += [_command(c.arguments) for c in record.tool_calls if c.name == RUN_BASH]
    return tuple(found)


def _command(arguments: str) -> str:
    try:
        command = json.loads(arguments).get("command")
    except (ValueError, AttributeError):
        command = None
    return command if isinstance(command, str) else arguments


__all__ = [
    "Action",
    "FileOutcome",
    "FilePlan",
    "TurnInfo",
    "TurnPreview",
    "UndoError",
    "UndoRefused",
    "UndoResult",
    "commands",
    "plan_file",
    "runs",
    "user_text",
    "users",
]
