"""The bytes undo puts back: content-addressed blobs under `.zizou/checkpoints/`, pruned cheaply.

A blob is stored once by its SHA-256 (`blobs/ab/cdef…`, private), read back only when its hash
still matches, and touched when stored again, so its mtime says when a turn last needed it.
Each session lists the hashes it stored in `refs/<session id>`: pruning at start-up reads those
short lists instead of every session file. A blob goes when no session left lists it (after a
grace period, for a blob another zizou is storing right now), when it was unused for longer
than the age limit, and then oldest first while the whole store is over the size limit.
Everything goes through `zizou.confined`: a `.zizou` or a directory in it that is a symlink is
refused, never written through.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.confined import Listed
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME, project_dir
from zizou.sessions.store import SESSIONS_DIR

CHECKPOINTS_DIR = f"{PROJECT_DIR_NAME}/checkpoints"
BLOBS_DIR = f"{CHECKPOINTS_DIR}/blobs"
REFS_DIR = f"{CHECKPOINTS_DIR}/refs"
MAX_SAVED_BYTES = 64 << 20  # a file larger than this is changed without a checkpoint
GRACE_S = 3600.0  # an unlisted blob this young may be another zizou's, being stored now
DAY_S = 86_400.0
log = logging.getLogger(__name__)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _is_hash(name: str) -> bool:
    return len(name) == 64 and all(ch in "0123456789abcdef" for ch in name)


@dataclass(frozen=True)
class Pruned:
    """What a prune removed: blobs and their bytes, and the lists of sessions that are gone."""

    blobs: int = 0
    bytes: int = 0
    refs: int = 0


class BlobStore:
    """The checkpoint blobs of one project; `session_id` is the session whose list a new blob
    joins."""

    def __init__(self, root: Path, session_id: str) -> None:
        self.root = root
        self.session_id = session_id
        self._listed: set[str] = set()  # hashes this process added to the session's list
        self._unlisted: list[str] = []  # put without a sync, listed at `flush`

    @staticmethod
    def path(sha: str) -> str:
        return f"{BLOBS_DIR}/{sha[:2]}/{sha[2:]}"

    def put(self, data: bytes, *, durable: bool = True) -> str:
        """Keep `data`; its hash. A PathError (UnsafeProjectDir) when `.zizou` is unsafe.
        `durable=False` (the thousands of files a command changed) skips the syncs and lists
        the blob only at `flush()`, which must come before any record names it: a blob lost
        in a crash is then one undo says it cannot restore, never one it restores wrong."""
        sha = digest(data)
        if durable or not self._unlisted:  # a batch's `.zizou` is checked at its first blob
            project_dir(self.root)
        if not self._holds(sha, len(data)):
            if _exists(self.root, self.path(sha)):  # planted or damaged: its place is ours
                _unlink(self.root, self.path(sha))
            confined.atomic_write(self.root, self.path(sha), data, new_mode=0o600, durable=durable)
        if durable:
            self._list([sha])
        else:
            self._unlisted.append(sha)
        return sha

    def flush(self) -> None:
        """List the blobs put with `durable=False` in the session's list, synced once."""
        unlisted, self._unlisted = self._unlisted, []
        self._list(unlisted)

    def has(self, sha: str) -> bool:
        try:
            return confined.stat(self.root, self.path(sha)) is not None
        except PathError:
            return False

    def get(self, sha: str) -> bytes | None:
        """The bytes stored as `sha`; None when they are gone (pruned) or damaged."""
        try:
            data = confined.read_bytes(self.root, self.path(sha), MAX_SAVED_BYTES)
        except PathError:
            return None
        return data if digest(data) == sha else None

    def _holds(self, sha: str, size: int) -> bool:
        """Whether the blob `sha` is stored whole (its size and hash checked through one fd),
        touched then; False when it is missing, damaged or cannot be read or touched."""
        try:
            fd = confined.open_file(self.root, self.path(sha), os.O_RDONLY)
        except (OSError, PathError):
            return False
        try:
            if os.fstat(fd).st_size != size:
                return False
            hasher = hashlib.sha256()
            while chunk := os.read(fd, 1 << 20):
                hasher.update(chunk)
            if hasher.hexdigest() != sha:
                return False
            os.utime(fd)
        except OSError:
            return False
        finally:
            os.close(fd)
        return True

    def _list(self, shas: list[str]) -> None:
        new = list(dict.fromkeys(sha for sha in shas if sha not in self._listed))
        if not new:
            return
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        name = f"{REFS_DIR}/{self.session_id}"
        fd = confined.open_file(self.root, name, flags, 0o600, parents=True)
        try:
            os.write(fd, "".join(f"{sha}\n" for sha in new).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
        self._listed.update(new)

    def prune(self, max_bytes: int, max_age_s: float, now: float | None = None) -> Pruned:
        """Remove the blobs no session lists, those unused for `max_age_s`, then the oldest
        while the rest hold more than `max_bytes`. Nothing is made when there is no store."""
        now = time.time() if now is None else now
        if not _exists(self.root, CHECKPOINTS_DIR):
            return Pruned()
        referenced = self._referenced()
        if referenced is None:
            return Pruned()
        listed, refs = referenced
        blobs = sorted(self._blobs(), key=lambda blob: blob[2].mtime_ns)
        kept: list[tuple[str, Listed]] = []
        removed = removed_bytes = 0
        for sha, rel, entry in blobs:
            age = now - entry.mtime_ns / 1e9
            unlisted = not _is_hash(sha) or sha not in listed
            if age > max_age_s or (unlisted and age > GRACE_S):
                removed, removed_bytes = removed + 1, removed_bytes + entry.size
                _unlink(self.root, rel)
            else:
                kept.append((rel, entry))
        total = sum(entry.size for _, entry in kept)
        for rel, entry in kept:  # oldest first
            if total <= max_bytes:
                break
            _unlink(self.root, rel)
            total -= entry.size
            removed, removed_bytes = removed + 1, removed_bytes + entry.size
        return Pruned(removed, removed_bytes, refs)

    def _referenced(self) -> tuple[set[str], int] | None:
        """The hashes the sessions still here list, and how many lists of gone sessions were
        removed; None when a listing cannot be read (then nothing can be known unreferenced)."""
        found = _listing(self.root, SESSIONS_DIR)
        refs = _listing(self.root, REFS_DIR) if found is not None else None
        if found is None or refs is None:
            log.warning("checkpoints were not pruned: the list of sessions could not be read")
            return None
        sessions = {
            entry.name.removesuffix(".jsonl")
            for entry in found
            if entry.is_file and entry.name.endswith(".jsonl")
        }
        listed: set[str] = set()
        gone = 0
        for entry in refs:
            rel = f"{REFS_DIR}/{entry.name}"
            if not entry.is_file:
                continue
            if entry.name not in sessions and entry.name != self.session_id:
                _unlink(self.root, rel)
                gone += 1
                continue
            try:
                text = confined.read_bytes(self.root, rel, 64 << 20).decode("ascii", "replace")
            except PathError as err:
                if not _exists(self.root, rel):
                    continue  # removed meanwhile, by another zizou pruning
                log.warning("checkpoints were not pruned: %s could not be read: %s", rel, err)
                return None
            listed.update(line.strip() for line in text.splitlines())
        return listed, gone

    def _blobs(self) -> list[tuple[str, str, Listed]]:
        """Each stored file: the hash its place names, its path, its entry."""
        found: list[tuple[str, str, Listed]] = []
        for fan in _listing(self.root, BLOBS_DIR) or []:
            if fan.is_dir and len(fan.name) == 2:
                where = f"{BLOBS_DIR}/{fan.name}"
                for entry in _listing(self.root, where) or []:
                    if entry.is_file:
                        found.append((fan.name + entry.name, f"{where}/{entry.name}", entry))
        return found


def _exists(root: Path, rel: str) -> bool:
    try:
        return confined.stat(root, rel) is not None
    except PathError:
        return False


def _listing(root: Path, rel: str) -> list[Listed] | None:
    """The entries of the directory `rel`: none when it does not exist, None when it cannot be
    read."""
    try:
        return confined.scandir(root, rel)
    except PathError:
        pass
    try:
        return [] if confined.stat(root, rel) is None else None
    except PathError:
        return None


def _unlink(root: Path, rel: str) -> None:
    """Remove the file `rel` through its directory's fd; a failure is only logged."""
    parent, _, name = rel.rpartition("/")
    try:
        fd = confined.open_dir_fd(root, parent)
    except PathError as err:
        log.warning("could not prune %s: %s", rel, err)
        return
    try:
        os.unlink(name, dir_fd=fd)
    except OSError as err:
        log.warning("could not prune %s: %s", rel, err)
    finally:
        os.close(fd)


__all__ = ["CHECKPOINTS_DIR", "MAX_SAVED_BYTES", "BlobStore", "Pruned", "digest"]
