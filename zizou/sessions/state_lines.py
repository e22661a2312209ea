"""The lines of a session that set its state (the task state, the open windows, the hooks'
state, the sticky instructions), kept with the turn they were written in, so that the state
follows the conversation through undo and redo.

A turn changes more than files: the model sets a goal, ticks a plan item, opens windows; a
hook keeps a value. An `undone` line takes the turn out of the conversation, and with it the
state lines written since the conversation had as many user messages as it has after the undo
(the turn's own, and any made after it); a `redone` line puts them back. A summary that
replaced the turns makes every line before it permanent, as it ends undo for those turns.
Loading a session file replays its lines so (sessions/store.py), and a running session keeps
the same lines as its state changes (checkpoints/recorder.py), so both agree on what undo
leaves.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, assert_never

from zizou.contracts.state import (
    HookStateChanged,
    InstructionsLoaded,
    ModeChanged,
    StateChanged,
    StateEvent,
    WorkspaceChanged,
)
from zizou.contracts.workspace import Window, line_spec
from zizou.sessions.records import (
    CheckpointLine,
    CompactedRecord,
    HookStateRecord,
    InstructionsRecord,
    ModeRecord,
    RedoneRecord,
    StateRecord,
    UndoneRecord,
    WorkspaceRecord,
)

StateLine = StateRecord | WorkspaceRecord | HookStateRecord | InstructionsRecord
SETTLED = -1  # the place of a line no undo can take back (before a summary)


def state_record(event: StateEvent) -> StateLine | ModeRecord:
    """The line the session file keeps of a change to the session's state."""
    match event:
        case WorkspaceChanged(records=records):
            return WorkspaceRecord(windows=list(records))
        case StateChanged(snapshot=True):
            return StateRecord(source=event.source, snapshot=dict(event.value))
        case StateChanged():
            patch = list(event.patch) if event.patch is not None else None
            return StateRecord(source=event.source, patch=patch, merge=event.merge)
        case InstructionsLoaded(sticky=sticky):
            return InstructionsRecord(sticky=list(sticky))
        case ModeChanged(mode=mode):
            return ModeRecord(mode=mode)
        case HookStateChanged(hook=hook, key=key, value=value):
            return HookStateRecord(hook=hook, key=key, value=value)
        case _:
            assert_never(event)


@dataclass
class StateLines:
    """The state lines in force, each with how many user messages the conversation had when it
    was written, and those of the undone turns (the last undone last) that a redo restores."""

    kept: list[tuple[int, StateLine]] = field(default_factory=list)
    undone: list[tuple[int, list[tuple[int, StateLine]]]] = field(default_factory=list)

    def add(self, users: int, line: StateLine) -> None:
        self.kept.append((users, line))

    def follow(self, line: CheckpointLine, users: int) -> None:
        """After an undo, a redo or a summary, which left `users` user messages."""
        if isinstance(line, UndoneRecord):
            self.cut(line.turn, users)
        elif isinstance(line, RedoneRecord):
            self.redone(line.turn)
        elif isinstance(line, CompactedRecord):
            self.summarised()

    def cut(self, turn: int, users: int) -> None:
        """Turn `turn` was undone, leaving `users` user messages: the lines written after them
        wait for a redo."""
        taken = [entry for entry in self.kept if entry[0] > users]
        self.kept = [entry for entry in self.kept if entry[0] <= users]
        self.undone.append((turn, taken))

    def redone(self, turn: int) -> None:
        """Turn `turn` was done again: its lines are in force again, after those since."""
        for index in range(len(self.undone) - 1, -1, -1):
            if self.undone[index][0] == turn:
                self.kept += self.undone.pop(index)[1]
                return

    def new_turn(self) -> None:
        """A new turn began: what was undone stays undone."""
        self.undone.clear()

    def summarised(self) -> None:
        """A summary replaced the turns: no undo reaches the lines so far."""
        self.kept = [(SETTLED, line) for _, line in self.kept]
        self.undone.clear()

    def in_force(self, session_id: str) -> InForce:
        """The state the lines in force give (`session_id` names the session in warnings)."""
        return InForce.of(session_id, (line for _, line in self.kept))


@dataclass
class InForce:
    """A session's state as its lines give it: the last workspace, every task state change in
    order (replayed on the zero value), the last sticky set, the last value of each hook's
    key; warnings for the windows that could not be read."""

    windows: tuple[Window, ...] = ()
    task: tuple[StateRecord, ...] = ()
    sticky: tuple[str, ...] = ()
    hook_state: dict[str, dict[str, Any]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, session_id: str, lines: Iterable[StateLine]) -> InForce:
        found = cls()
        task: list[StateRecord] = []
        for line in lines:
            if isinstance(line, WorkspaceRecord):
                found.windows = _windows(session_id, line, found.warnings)
            elif isinstance(line, StateRecord):
                task.append(line)
            elif isinstance(line, InstructionsRecord):
                found.sticky = tuple(line.sticky)
            else:
                found.hook_state.setdefault(line.hook, {})[line.key] = line.value
        found.task = tuple(task)
        return found


def _windows(session_id: str, record: WorkspaceRecord, warnings: list[str]) -> tuple[Window, ...]:
    """The windows a workspace record names; a damaged one is skipped with a warning."""
    if record.windows is None:  # written before windows had ids: files and line ranges
        return tuple(
            Window(
                f"w{n}",
                str(v.get("path", "")),
                line_spec(v.get("start_line"), v.get("end_line")),
                "session",
            )
            for n, v in enumerate(record.views, 1)
            if v.get("path")
        )
    windows: list[Window] = []
    for data in record.windows:
        try:
            windows.append(Window.from_record(data))
        except (KeyError, TypeError, ValueError) as exc:
            warnings.append(f"session {session_id}: skipped a workspace window ({exc})")
    return tuple(windows)


__all__ = ["InForce", "StateLine", "StateLines", "state_record"]
