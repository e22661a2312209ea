"""What undo knows of a session, without touching the disk: the files each turn changed, the
commands it ran (what they changed that undo cannot restore), and the stack of undone turns
redo can put back.

A session file's `checkpoint`, `command`, `undone`, `redone` and turn lines replay into a `History`
(`History.replay`), and the live session adds to it as tools run; both take the same steps, so
`zizou -c` and `zizou undo` see what the running session saw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from zizou.contracts.conversation import user_messages
from zizou.sessions.records import (
    ChangedFile,
    CheckpointLine,
    CheckpointRecord,
    CommandNote,
    CommandRecord,
    CompactedRecord,
    RedoneRecord,
    TurnRecord,
    UndoneRecord,
)


@dataclass(frozen=True)
class FileChange:
    """One file a turn changed: its SHA-256 before the turn's first change to it and after its
    last (None: it did not exist), its permission bits before, why its bytes before were not
    kept, if they were not (then it cannot be restored), whether `after` is what the tool
    left (not while it runs, nor after a crash that cut it short), and whether zizou may not
    have made the change at all (`unsure`)."""

    path: str
    before: str | None
    after: str | None
    mode: int | None = None
    unsaved: str | None = None
    settled: bool = True
    unsure: bool = False  # maybe not zizou's change (see `CheckpointRecord.unsure`)

    @property
    def changed(self) -> bool:
        """False for a call that left the file as it was (an edit that was refused)."""
        return not (self.settled and self.before == self.after and self.unsaved is None)

    def merged(self, later: FileChange) -> FileChange:
        """This change followed by `later` in the same turn: the first before, the last after."""
        unsure = self.unsure or later.unsure
        return replace(self, after=later.after, settled=later.settled, unsure=unsure)

    def record(self, turn: int) -> CheckpointRecord:
        return CheckpointRecord(turn=turn, settled=self.settled, **self.fields())

    def fields(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "mode": self.mode,
            "unsaved": self.unsaved,
            "unsure": self.unsure,
        }

    @classmethod
    def of(cls, line: CheckpointRecord | ChangedFile) -> FileChange:
        settled = line.settled if isinstance(line, CheckpointRecord) else True
        return cls(
            line.path, line.before, line.after, line.mode, line.unsaved, settled, line.unsure
        )


@dataclass(frozen=True)
class Undone:
    """An undone turn, which redo can put back: its messages as undo removed them, its files
    (`after`: as undo found them), and how many user messages the conversation had right after
    the undo (redo needs it to be so still)."""

    turn: int
    messages: tuple[dict[str, Any], ...]
    files: tuple[FileChange, ...]
    commands: tuple[CommandNote, ...] = ()

    @property
    def users_after(self) -> int:
        """The user messages the conversation has once this turn is undone."""
        return self.turn + 1 - user_messages(self.messages)

    def changed(self) -> list[ChangedFile]:
        return [ChangedFile(**change.fields()) for change in self.files]


@dataclass
class History:
    """The files each turn of the conversation changed (by turn: its user message's index
    among the user messages), the undone turns (the last undone last), and how many user
    messages stand for turns summarised away (`floor`: undo never goes back past them)."""

    turns: dict[int, dict[str, FileChange]] = field(default_factory=dict)
    commands: dict[int, list[CommandNote]] = field(default_factory=dict)
    redo: list[Undone] = field(default_factory=list)
    floor: int = 0

    def compacted(self, users: int) -> None:
        """The turns were replaced by a summary, in `users` user messages: they and what
        could be redone are gone for undo."""
        self.turns.clear()
        self.commands.clear()
        self.redo.clear()
        self.floor = users

    def note(self, turn: int, change: FileChange) -> FileChange:
        """`change` joins `turn`'s; the turn's change to that file now."""
        files = self.turns.setdefault(turn, {})
        known = files.get(change.path)
        files[change.path] = merged = change if known is None else known.merged(change)
        return merged

    def ran(self, turn: int, note: CommandNote) -> None:
        """`turn` ran a command, snapshotted: `note` says what undo cannot restore of it."""
        self.commands.setdefault(turn, []).append(note)

    def forget(self, first: int) -> None:
        """Drop what turn `first` and every later one changed and ran."""
        for turn in [t for t in self.turns if t >= first]:
            del self.turns[turn]
        for turn in [t for t in self.commands if t >= first]:
            del self.commands[turn]

    def undone(self, entry: Undone) -> None:
        """`entry.turn` was undone: its changes (and any of later turns) wait for redo."""
        self.forget(entry.users_after)
        self.redo.append(entry)

    def redone(
        self, turn: int, files: Iterable[FileChange], commands: Iterable[CommandNote] = ()
    ) -> None:
        """`turn` was done again: its files changed as `files` say."""
        self.redo = [entry for entry in self.redo if entry.turn != turn]
        self.turns[turn] = {change.path: change for change in files}
        self.commands[turn] = list(commands)

    @classmethod
    def replay(cls, lines: Iterable[CheckpointLine]) -> History:
        """The history a session file's lines describe, in their order."""
        history = cls()
        for line in lines:
            if isinstance(line, CheckpointRecord):
                history.note(line.turn, FileChange.of(line))
            elif isinstance(line, CommandRecord):
                history.ran(line.turn, line.note)
            elif isinstance(line, UndoneRecord):
                files = tuple(FileChange.of(f) for f in line.files)
                commands = tuple(line.commands)
                history.undone(Undone(line.turn, tuple(line.messages), files, commands))
            elif isinstance(line, RedoneRecord):
                files_done = (FileChange.of(f) for f in line.files)
                history.redone(line.turn, files_done, line.commands)
            elif isinstance(line, TurnRecord) and line.event == "started":
                history.redo.clear()  # a new turn: what was undone stays undone
            elif isinstance(line, CompactedRecord):
                history.compacted(user_messages(line.messages))
        return history


__all__ = ["FileChange", "History", "Undone"]
