"""Commands undo can take back, and only what they changed.

A command run in a copy-on-write layer of its own (zizou/sandbox/layer.py) has its changes
moved into the project when it ends, and the layer says exactly which files it created, changed
or deleted, with their bytes before (`layer_changes.py`): those are noted as changes of the turn,
as a file tool's would be. Elsewhere (no sandbox, `--sandbox off`, no overlay on this system)
the project's files are snapshotted before the command runs and after it ended
(zizou/checkpoints/shadow.py), and every file that differs is noted, but as `unsure`: it may
have been the user's editor or another zizou, so undo asks before putting it back, naming it.
A background job is not watched: its changes stay.

What cannot be restored is recorded with the command (a `command` line) and named in undo's
previews: ignored files it changed, deleted or created, symbolic links and nested
repositories, names undo does not write. A command whose changes could not be kept is recorded
with why, and its changes are said to stay.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from zizou.checkpoints.history import FileChange
from zizou.checkpoints.layer_changes import layer_changes
from zizou.checkpoints.shadow import ShadowRepo
from zizou.checkpoints.snapshot_diff import (
    LINK,
    Blob,
    Changed,
    Snapshot,
    SnapshotError,
    was_ignored,
)
from zizou.checkpoints.snapshot_diff import ignored_changes as ignored
from zizou.errors import PathError
from zizou.sessions.records import (
    CheckpointRecord,
    CommandNote,
    UnkeptChange,
    UnkeptPath,
    UnkeptWhy,
)

if TYPE_CHECKING:
    from zizou.checkpoints.blobs import BlobStore
    from zizou.contracts.protocols import CommandWatching
    from zizou.sandbox.layer_apply import Applied


class CommandOwner(Protocol):
    """Where a watched command's changes go (the session's `recorder.ChangeLog`)."""

    blobs: BlobStore

    def note_command(self, turn: int, changes: list[FileChange], note: CommandNote) -> None: ...


MAX_NAMED = 200  # paths named per command as not restorable; the others are counted
TOO_LARGE = "it is larger than 64 MB"
GONE = "its bytes were not in the snapshot"
UNWATCHED = "it ran in the background, where what it changes is not watched"
NOT_APPLIED = (
    "it was moved to the background or stopped before it ended: its changes reach the "
    "project when it ends, and are not undone"
)


class CommandWatch:
    """One command of turn `turn`: the snapshot taken before it ran (None: `problem` says why
    there is none), and `finished` to keep what it changed."""

    def __init__(
        self,
        owner: CommandOwner,
        shadow: ShadowRepo | None,
        command: str,
        turn: int,
        watched: CommandWatching = "snapshot",
    ) -> None:
        self.owner = owner
        self.shadow = shadow
        self.command = command
        self.turn = turn
        self.watched = watched
        self.problem: str | None = None
        self._lock = threading.Lock()
        self._done = False
        self.before: Snapshot | None = None
        if watched == "unwatched":
            self.problem = UNWATCHED
        elif watched == "snapshot" and shadow is None:
            self.problem = "commands are not snapshotted"
        elif watched == "snapshot" and shadow is not None:
            try:
                self.before = shadow.snapshot()
            except SnapshotError as err:
                self.problem = str(err)

    def finished(self, applied: Applied | None = None) -> str | None:
        """Keep what the command changed (once): what its layer `applied`, or what the
        snapshots show; why it could not be kept, if it could not."""
        with self._lock:
            if self._done:
                return None
            self._done = True
            if self.watched == "layer":
                return self._keep_applied(applied)
            if self.before is None or self.shadow is None:
                self._record([], CommandNote(command=self.command, problem=self.problem))
                return None
            try:
                self._keep(self.shadow, self.before)
                return None
            except (SnapshotError, PathError, OSError) as err:
                why = str(err) or type(err).__name__
                self._record([], CommandNote(command=self.command, problem=why))
                return f"what it changed is not kept for undo: {why}"

    def _keep_applied(self, applied: Applied | None) -> str | None:
        if applied is None:
            self._record([], CommandNote(command=self.command, problem=NOT_APPLIED))
            return None
        try:
            changes, unkept = layer_changes(applied, self.owner.blobs)
        except (PathError, OSError) as err:
            why = str(err) or type(err).__name__
            self._record([], CommandNote(command=self.command, problem=why))
            return f"what it changed is not kept for undo: {why}"
        more = max(0, len(unkept) - MAX_NAMED)
        note = CommandNote(command=self.command, unkept=unkept[:MAX_NAMED], more=more)
        self._record(changes, note)
        return None

    def _keep(self, shadow: ShadowRepo, before: Snapshot) -> None:
        after = shadow.snapshot()
        changed = shadow.changes(before.tree, after.tree)
        found = ignored(shadow.root, before, after)
        unkept = [UnkeptPath(path=p, why="ignored", change=c) for p, c in found]
        hidden = was_ignored(before)  # a file the command un-ignored was there before it
        changed = [c for c in changed if c.before is not None or not hidden(c.path)]
        files = [item for item in changed if _restorable(item, unkept)]
        blobs = self._blobs(shadow, files)
        self.owner.blobs.flush()
        # Anyone may have made them while it ran: undo asks before putting them back.
        changes = [replace(_change(item, blobs), unsure=True) for item in files]
        note = CommandNote(
            command=self.command, unkept=unkept[:MAX_NAMED], more=max(0, len(unkept) - MAX_NAMED)
        )
        self._record(changes, note)

    def _blobs(
        self, shadow: ShadowRepo, files: list[Changed]
    ) -> dict[str, tuple[Blob | None, bool]]:
        """Each object the changes name: its bytes' hash, and whether they were kept as a blob
        (the ones before the command are; those after are only hashed)."""
        wanted = {item.before.oid for item in files if item.before is not None}
        oids = list(wanted | {item.after.oid for item in files if item.after is not None})
        found: dict[str, tuple[Blob | None, bool]] = {}
        for oid, blob in shadow.blobs(oids):
            kept = blob is not None and blob.data is not None and oid in wanted
            if kept and blob is not None and blob.data is not None:
                self.owner.blobs.put(blob.data, durable=False)
            found[oid] = (None if blob is None else Blob(blob.sha256, None), kept)
        return found

    def _record(self, changes: list[FileChange], note: CommandNote) -> None:
        if self.turn >= 0:
            self.owner.note_command(self.turn, changes, note)


def _restorable(item: Changed, unkept: list[UnkeptPath]) -> bool:
    """Whether undo can restore the path; if not, it joins `unkept` with why."""
    sides = [entry for entry in (item.before, item.after) if entry is not None]
    change: UnkeptChange = (
        "created" if item.before is None else "deleted" if item.after is None else "changed"
    )
    why: UnkeptWhy
    if all(entry.regular for entry in sides):
        try:
            item.path.encode("utf-8")
            CheckpointRecord(turn=0, path=item.path)
            return True
        except (UnicodeEncodeError, ValueError):
            why = "name"
    else:
        why = "link" if any(entry.mode == LINK for entry in sides) else "repository"
    shown = item.path.encode("utf-8", "replace").decode("utf-8", "replace")
    unkept.append(UnkeptPath(path=shown, why=why, change=change))
    return False


def _change(item: Changed, blobs: dict[str, tuple[Blob | None, bool]]) -> FileChange:
    """The file change a snapshot diff names, as undo keeps it."""
    after = None
    if item.after is not None:
        blob, _ = blobs.get(item.after.oid, (None, False))
        after = blob.sha256 if blob is not None else None
    if item.before is None:
        return FileChange(item.path, None, after)
    mode = 0o755 if item.before.mode == "100755" else 0o644
    blob, kept = blobs.get(item.before.oid, (None, False))
    if blob is None or not kept:
        why = TOO_LARGE if blob is not None else GONE
        return FileChange(item.path, None, after, mode, unsaved=why)
    return FileChange(item.path, blob.sha256, after, mode)


__all__ = ["MAX_NAMED", "CommandWatch"]
