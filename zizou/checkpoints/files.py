"""The project's files as undo reads them and puts them back: every path walked again through
`zizou.confined`, so a directory swapped for a symlink since the turn is refused, never
followed, and what is written is exactly the bytes that were kept (binary, CRLF and all)."""

from __future__ import annotations

import os
import stat as st
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.checkpoints.blobs import MAX_SAVED_BYTES, digest
from zizou.errors import PathError

NEW_FILE_MODE = 0o644


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
    """Delete the regular file `rel` (gone already: nothing to do); a PathError otherwise."""
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


__all__ = ["Found", "look", "put_back", "remove"]
