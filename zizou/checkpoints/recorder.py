"""Keeping what tools change, one session at a time: the call runner's `ChangeRecorder`.

Right before an allowed write or delete, `ChangeLog.before_change` keeps the file's bytes (read
through the very handle the tool writes through, so what is kept is the file the tool changes)
as a blob, and notes it in the session file as a `checkpoint` line of the current turn; once
the tool ended, `after_change` notes the hash it left. A file is kept once a turn: a second
change in the same turn only moves its `after`. What a command changed is noted the same way,
from its copy-on-write layer or from snapshots of the project's files (see `commands.py`). It is
also a `TurnRecorder`, so a new turn clears what could be redone, and a summary that replaces
the turns (`/compact`) ends their undo.
"""

from __future__ import annotations

import logging
import stat as st
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from zizou import confined
from zizou.checkpoints.blobs import DAY_S, MAX_SAVED_BYTES, BlobStore, Pruned, digest
from zizou.checkpoints.commands import CommandWatch
from zizou.checkpoints.history import FileChange, History
from zizou.checkpoints.plans import Run, users
from zizou.checkpoints.shadow import ShadowRepo
from zizou.checkpoints.snapshot_diff import SnapshotError
from zizou.confined import PathHandle
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import AnyEvent, Compacted
from zizou.contracts.protocols import CommandWatching, ModelRequest
from zizou.contracts.state import StateEvent
from zizou.errors import PathError
from zizou.sandbox.layer import layers_dir, left_behind
from zizou.sandbox.layer_apply import apply_layer
from zizou.sessions.records import CheckpointLine, CommandNote, CommandRecord, ModeRecord, Record
from zizou.sessions.state_lines import StateLines, state_record
from zizou.sessions.store import SessionWriter

log = logging.getLogger(__name__)


class ChangeLog:
    """What tools changed in one session, by turn: its conversation (whose user messages say
    which turn runs), the file that keeps it (`writer`; None: kept in memory only) and the lines
    that file already holds."""

    def __init__(
        self,
        root: Path,
        session_id: str,
        conversation: Conversation,
        writer: SessionWriter | None = None,
        lines: Iterable[CheckpointLine] = (),
        state_lines: StateLines | None = None,
    ) -> None:
        self.root = root
        self.session_id = session_id
        self.conversation = conversation
        self.writer = writer
        self.blobs = BlobStore(root, session_id)
        self.history = History.replay(lines)
        # The task state, windows and hooks' state set so far, by turn (see `record_state`).
        self.state_lines = state_lines if state_lines is not None else StateLines()
        self._pending: dict[str, int] = {}  # the turn of each file a running call changes
        self.shadow: ShadowRepo | None = ShadowRepo(root)  # None: commands are not watched

    def prune(self, max_mb: int, max_age_days: int) -> Pruned:
        """Prune the project's blobs (see `BlobStore.prune`) and the snapshots' repository
        (`ShadowRepo.prune`), sweep the temp files of writes cut short, and move into the
        project what a command left in its layer when its zizou died; at start-up."""
        confined.sweep_staged(self.root)
        for layer in left_behind(self.root, layers_dir()):
            applied = apply_layer(layer, MAX_SAVED_BYTES)
            done = len(applied.files) + len(applied.skipped)
            log.warning(
                "moved %d changes a command left when its zizou ended into the project"
                " (not undone)",
                done,
            )
            for conflict in applied.conflicts:
                log.warning(
                    "kept the project's version of %s; the command's: %s",
                    conflict.path,
                    conflict.kept,
                )
        if self.shadow is not None:
            try:
                self.shadow.prune(max_age_days * DAY_S)
            except SnapshotError as err:
                log.warning("the command snapshots were not pruned: %s", err)
        return self.blobs.prune(max_mb * 1_000_000, max_age_days * DAY_S)

    # The call runner's ChangeRecorder.

    def before_change(self, file: PathHandle) -> str | None:
        """Keep `file` as it is before the turn's first change to it; why it could not be
        kept, if it could not (the tool still runs)."""
        turn = users(self.conversation.records) - 1
        if turn < 0:
            return None
        if file.rel.split("/")[0] in (".git", ".zizou"):
            return "changes under .git/ and .zizou/ are never undone"
        self._pending[file.rel] = turn
        if file.rel in self.history.turns.get(turn, {}):
            return None  # its bytes before this turn are kept already
        try:
            info = file.stat()
        except PathError:
            return None  # a symlink: the tool refuses it too
        if info is None:
            self._note(turn, FileChange(file.rel, None, None, settled=False))
            return None
        if not st.S_ISREG(info.st_mode):
            return None  # a directory: the tool refuses it
        mode = st.S_IMODE(info.st_mode)
        try:
            sha = self.blobs.put(file.read_bytes(MAX_SAVED_BYTES))
        except (PathError, OSError) as err:
            why = str(err) or type(err).__name__
            self._note(turn, FileChange(file.rel, None, None, mode, why, settled=False))
            return why
        self._note(turn, FileChange(file.rel, sha, sha, mode, settled=False))
        return None

    def after_change(self, file: PathHandle) -> None:
        """Note the hash the tool left `file` with (undo compares it with the file then)."""
        turn = self._pending.pop(file.rel, None)
        known = None if turn is None else self.history.turns.get(turn, {}).get(file.rel)
        if turn is None or known is None:
            return
        try:
            info = file.stat()
            sha = None if info is None else digest(file.read_bytes(MAX_SAVED_BYTES))
        except PathError as err:  # its after stays: undo will see a file changed outside zizou
            log.warning("could not read %s after the change: %s", file.rel, err)
            return
        if sha != known.after or not known.settled:
            self._note(turn, replace(known, after=sha, settled=True))

    def before_command(
        self, command: str, watched: CommandWatching = "snapshot"
    ) -> CommandWatch | None:
        """Watch `command` as `watched` says (a snapshot of the project's files is taken now
        for "snapshot"); None when no turn runs, or commands are snapshotted and that is off."""
        turn = users(self.conversation.records) - 1
        if turn < 0 or (watched == "snapshot" and self.shadow is None):
            return None
        return CommandWatch(self, self.shadow, command, turn, watched)

    def note_command(self, turn: int, changes: list[FileChange], note: CommandNote) -> None:
        """A command of `turn` changed `changes` (merged with what the turn changed before), and
        `note` says what of it cannot be restored; one sync for all of it."""
        records: list[Record] = [self.history.note(turn, c).record(turn) for c in changes]
        self.history.ran(turn, note)
        if self.writer is not None:
            self.writer.write_many([*records, CommandRecord(turn=turn, note=note)])

    def _note(self, turn: int, change: FileChange) -> None:
        merged = self.history.note(turn, change)
        if self.writer is not None:
            self.writer.write(merged.record(turn))

    # A TurnRecorder: a new turn clears what could be redone.

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.history.redo.clear()
        self.state_lines.new_turn()
        # The turn starting now keeps what its own calls find: nothing said of it before counts.
        self.history.forget(users(self.conversation.records))

    def record_request(self, step: int, request: ModelRequest) -> None:
        return None

    def emit(self, event: AnyEvent) -> None:
        if isinstance(event, Compacted):  # a summary replaced the turns: none can be undone
            self.history.compacted(users(self.conversation.records))
            self.state_lines.summarised()

    # A subscriber of the session's state: what a turn changes besides files.

    def record_state(self, event: StateEvent) -> None:
        """The session's state changed: kept with the turn that changed it, so that undoing
        the turn takes the change back (as the session file's lines do when loaded)."""
        line = state_record(event)
        if not isinstance(line, ModeRecord):  # the mode is the user's, never undone
            self.state_lines.add(users(self.conversation.records), line)

    def changes(self, run: Run) -> list[FileChange]:
        """The files a turn changed, merged over its user messages."""
        merged: dict[str, FileChange] = {}
        for turn in range(run.first, run.last + 1):
            for path, change in self.history.turns.get(turn, {}).items():
                known = merged.get(path)
                merged[path] = change if known is None else known.merged(change)
        return [change for change in merged.values() if change.changed]

    def notes(self, run: Run) -> list[CommandNote]:
        """The commands a turn ran that were snapshotted, over its user messages."""
        return [
            n
            for turn in range(run.first, run.last + 1)
            for n in self.history.commands.get(turn, [])
        ]


__all__ = ["ChangeLog"]
