"""What a command's copy-on-write layer applied (zizou/sandbox/layer_apply.py), as undo keeps it:
each regular file it created, changed or deleted becomes a change of the turn, its bytes before
kept as a blob; what undo cannot restore (links, skipped directories, names it does not write)
is named, never claimed."""

from __future__ import annotations

from zizou.checkpoints.blobs import BlobStore
from zizou.checkpoints.history import FileChange
from zizou.sandbox.layer_apply import Applied, AppliedFile
from zizou.sessions.records import CheckpointRecord, UnkeptPath

OVER_LIMIT = "it is larger than 64 MB, or its command changed more than 256 MB of files"


def layer_changes(applied: Applied, blobs: BlobStore) -> tuple[list[FileChange], list[UnkeptPath]]:
    """The turn's file changes the layer applied, and the paths undo cannot restore. The
    bytes before are kept in `blobs` (flushed once at the end)."""
    changes: list[FileChange] = []
    unkept = [UnkeptPath(path=path, why="ignored", change=how) for path, how in applied.skipped]
    for item in applied.files:
        if not item.regular:
            unkept.append(UnkeptPath(path=_shown(item.path), why="link", change=item.change))
        elif not _writable_name(item.path):
            unkept.append(UnkeptPath(path=_shown(item.path), why="name", change=item.change))
        else:
            changes.append(_change(item, blobs))
    blobs.flush()
    return changes, unkept


def _change(item: AppliedFile, blobs: BlobStore) -> FileChange:
    if item.change == "created":
        return FileChange(item.path, None, item.after)
    if item.before is None:
        why = OVER_LIMIT if item.too_large else "its bytes before could not be read"
        return FileChange(item.path, None, item.after, item.mode, unsaved=why)
    sha = blobs.put(item.before, durable=False)
    return FileChange(item.path, sha, item.after, item.mode)


def _writable_name(path: str) -> bool:
    try:
        path.encode("utf-8")
        CheckpointRecord(turn=0, path=path)
    except (UnicodeEncodeError, ValueError):
        return False
    return True


def _shown(path: str) -> str:
    return path.encode("utf-8", "replace").decode("utf-8", "replace")


__all__ = ["OVER_LIMIT", "layer_changes"]
