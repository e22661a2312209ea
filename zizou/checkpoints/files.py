"""The project's files as undo reads them and puts them back: every path walked again through
`zizou.confined`, so a directory swapped for a symlink since the turn is refused, never
followed, and what is written is exactly the bytes that were kept (binary, CRLF and all)."""

from __future__ import annotations

import contextlib
import os
import re
import stat as st
import time
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.checkpoints.blobs import MAX_SAVED_BYTES, digest
from zizou.errors import PathError

NEW_FILE_MODE = 0o644
LEFT_AFTER_S = 60.0  # a temp file beside a file, this old, is no write in progress
_LEFT_TEMP = re.compile(r"(\..*\.)[0-9a-f]{8}\.tmp", re.DOTALL)


@dataclass(frozen=True)
class Found:
    """A project file as it is now: its hash and bytes (both None: it does not exist), or why
    it cannot be read."""

    sha: str | None = None
    data: bytes | None = None
    problem: str | None = None

    @property
    def exists(self) -> bool:
        return self.data is not None


def look(root: Path, rel: str) -> Found:
    """The file `rel` now."""
    try:
        info = confined.stat(root, rel)
        if info is None:
            return Found()
        if not st.S_ISREG(info.st_mode):
            return Found(problem=f"{rel} is not a regular file now")
        data = confined.read_bytes(root, rel, MAX_SAVED_BYTES)
    except PathError as err:
        return Found(problem=str(err))
    return Found(digest(data), data)


def put_back(root: Path, rel: str, data: bytes, mode: int | None, *, durable: bool = True) -> None:
    """Write `data` as the file `rel` (its directories made again if they went); an existing
    file keeps its mode, a new one gets `mode`. `durable=False`: not synced (the caller syncs
    a batch once)."""
    mode = NEW_FILE_MODE if mode is None else mode
    confined.atomic_write(root, rel, data, new_mode=mode, durable=durable)


def remove(root: Path, rel: str) -> None:
    """Delete the regular file `rel` (gone already: nothing to do), then the directories above
    it that this left empty (the turn made them: a redo makes them again); a PathError when
    the file cannot be deleted."""
    _unlink(root, rel)
    parts = rel.split("/")[:-1]
    while parts:
        name = parts.pop()
        try:
            fd = confined.open_dir_fd(root, "/".join(parts) or ".")
        except PathError:
            return
        try:
            os.rmdir(name, dir_fd=fd)
        except OSError:
            return  # not empty (or not ours to remove): the ones above are not empty either
        finally:
            os.close(fd)


def sweep_beside(root: Path, paths: list[str], now: float | None = None) -> None:
    """Remove the temp files an atomic write of each of `paths` left beside it when it was
    cut short (written there by zizou before its writes were staged in `.zizou/tmp`, or where
    the stage cannot be used): `.NAME.<8 hex digits>.tmp`, once older than a write takes."""
    now = time.time() if now is None else now
    by_dir: dict[str, set[str]] = {}
    for rel in paths:
        parent, _, name = rel.rpartition("/")
        by_dir.setdefault(parent or ".", set()).add(f".{name[:200]}.")
    for parent, starts in by_dir.items():
        try:
            fd = confined.open_dir_fd(root, parent)
        except PathError:
            continue
        try:
            for entry in os.listdir(fd):  # noqa: PTH208 (an fd: pathlib cannot list one)
                if _left_temp(entry, starts):
                    with contextlib.suppress(OSError):
                        info = os.stat(entry, dir_fd=fd, follow_symlinks=False)
                        if st.S_ISREG(info.st_mode) and now - info.st_mtime > LEFT_AFTER_S:
                            os.unlink(entry, dir_fd=fd)
        finally:
            os.close(fd)


def _left_temp(entry: str, starts: set[str]) -> bool:
    found = _LEFT_TEMP.fullmatch(entry)
    return found is not None and found.group(1) in starts


def _unlink(root: Path, rel: str) -> None:
    parent, _, name = rel.rpartition("/")
    try:
        fd = confined.open_dir_fd(root, parent or ".")
    except PathError:
        if confined.stat(root, parent or ".") is None:
            return  # its directory went with it
        raise
    try:
        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if not st.S_ISREG(info.st_mode):
            raise PathError(f"{rel} is not a regular file now; undo does not remove it")
        os.unlink(name, dir_fd=fd)
    except FileNotFoundError:
        return
    except OSError as err:
        raise confined.failure(rel, err) from err
    finally:
        os.close(fd)


__all__ = ["Found", "look", "put_back", "remove", "sweep_beside"]
