"""What two snapshots of the project say (see shadow.py): the paths whose kept bytes changed,
read from git's raw diff; the bytes of each, read from `cat-file --batch` as they stream; and the
ignored entries a command created, changed or deleted, from their stat data."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from zizou.checkpoints.blobs import MAX_SAVED_BYTES
from zizou.sessions.records import UnkeptChange

EMPTY_MODE = "000000"
REGULAR = ("100644", "100755")
LINK = "120000"  # and "160000": a nested repository

Stamp = tuple[int, int, int, int]  # an ignored entry's mode, size, mtime and inode
MISSING: Stamp = (0, 0, 0, 0)


class SnapshotError(Exception):
    """The project's files could not be snapshotted; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    """The project's files at one moment: the tree of what is kept, and the stat data of each
    ignored entry (a wholly ignored directory is one entry, `dir/`)."""

    tree: str
    ignored: dict[str, Stamp] = field(default_factory=dict)


@dataclass(frozen=True)
class Entry:
    """A path in a tree: its git mode (`100644`, `100755`, `120000` a link, `160000` a nested
    repository) and object id."""

    mode: str
    oid: str

    @property
    def regular(self) -> bool:
        return self.mode in REGULAR


@dataclass(frozen=True)
class Changed:
    """A path that differs between two snapshots (None: it was not there)."""

    path: str
    before: Entry | None
    after: Entry | None


@dataclass(frozen=True)
class Blob:
    """A file's bytes read back from a snapshot: their SHA-256, and the bytes themselves unless
    they are over MAX_SAVED_BYTES (then only hashed)."""

    sha256: str
    data: bytes | None


def ignored_changes(
    root: Path, before: Snapshot, after: Snapshot
) -> list[tuple[str, UnkeptChange]]:
    """The ignored entries a command created, changed or deleted: (path, which). An entry no
    longer listed as it was (the ignore rules changed, or a directory is now listed file by
    file) is looked at where it is."""
    found: list[tuple[str, UnkeptChange]] = []
    for name, stamp in before.ignored.items():
        now = after.ignored.get(name)
        if now is None:
            now = stamp_of(root / name)
            if now == MISSING:
                found.append((name, "deleted"))
                continue
        if now != stamp:
            found.append((name, "changed"))
    hidden = was_ignored(before)
    found += [(name, "created") for name in after.ignored if not hidden(name)]
    return sorted(found)


def was_ignored(snapshot: Snapshot) -> Callable[[str], bool]:
    """Whether a path was ignored in `snapshot` (listed, or in a directory listed whole): one
    that a later snapshot keeps is then not new, only no longer ignored."""
    collapsed = {name for name in snapshot.ignored if name.endswith("/")}
    return lambda name: name in snapshot.ignored or _above(name, collapsed)


def _above(name: str, dirs: set[str]) -> bool:
    """Whether a directory that holds `name` is one of `dirs`."""
    parts = name.rstrip("/").split("/")
    return any("/".join(parts[:n]) + "/" in dirs for n in range(1, len(parts)))


def stamp_of(path: str | Path) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return MISSING
    return (info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino)


def parse_raw(out: bytes) -> Iterator[Changed]:
    """`diff-tree --raw -z`: `:MODE MODE OID OID STATUS\\0PATH\\0` per path."""
    parts = out.split(b"\0")
    for head, raw in zip(parts[0::2], parts[1::2], strict=False):
        fields = head.decode("ascii").lstrip(":").split()
        if len(fields) < 5:
            continue
        old_mode, new_mode, old_oid, new_oid = fields[:4]
        before = None if old_mode == EMPTY_MODE else Entry(old_mode, old_oid)
        after = None if new_mode == EMPTY_MODE else Entry(new_mode, new_oid)
        yield Changed(raw.decode("utf-8", "surrogateescape"), before, after)


def feed(stdin: IO[bytes], oids: Iterable[str]) -> None:
    try:
        for oid in oids:
            stdin.write(f"{oid}\n".encode("ascii"))
        stdin.close()
    except (OSError, ValueError):
        pass  # git was stopped early: the reader gave up


def read_blob(out: IO[bytes]) -> Blob | None:
    """One answer of `cat-file --batch`: `OID TYPE SIZE\\n` and the bytes, or `OID missing`."""
    header = out.readline().split()
    if len(header) != 3:
        if not header:
            raise SnapshotError("git cat-file ended early")
        return None
    size, hasher, kept = int(header[2]), hashlib.sha256(), bytearray()
    left = size
    while left:
        chunk = out.read(min(left, 1 << 20))
        if not chunk:
            raise SnapshotError("git cat-file ended early")
        hasher.update(chunk)
        if size <= MAX_SAVED_BYTES:
            kept += chunk
        left -= len(chunk)
    out.read(1)  # the newline after the bytes
    return Blob(hasher.hexdigest(), bytes(kept) if size <= MAX_SAVED_BYTES else None)


__all__ = [
    "MISSING",
    "Blob",
    "Changed",
    "Entry",
    "Snapshot",
    "SnapshotError",
    "Stamp",
    "feed",
    "ignored_changes",
    "parse_raw",
    "read_blob",
    "stamp_of",
    "was_ignored",
]
