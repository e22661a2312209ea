"""The lines of a session file that set its state (the task state, the open windows, the hooks'
state, the sticky instructions), kept with the turn they were written in, so that loading gives
the state as undo left the conversation.

A turn changes more than files: the model sets a goal, ticks a plan item, opens windows; a
hook keeps a value. An `undone` line takes the turn out of the conversation, and with it the
state lines written since the conversation had as many user messages as it has after the undo
(the turn's own, and any made after it); a `redone` line puts them back. A summary that
replaced the turns makes every line before it permanent, as it ends undo for those turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from zizou.sessions.records import (
    CheckpointLine,
    CompactedRecord,
    HookStateRecord,
    InstructionsRecord,
    RedoneRecord,
    StateRecord,
    UndoneRecord,
    WorkspaceRecord,
)

StateLine = StateRecord | WorkspaceRecord | HookStateRecord | InstructionsRecord
SETTLED = -1  # the place of a line no undo can take back (before a summary)


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

    def lines(self) -> list[StateLine]:
        """The lines in force, in the order they take effect."""
        return [line for _, line in self.kept]


__all__ = ["StateLine", "StateLines"]
