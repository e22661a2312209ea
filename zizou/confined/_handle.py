"""A file path resolved once and held open: what was checked (and approved) is what is used.

`open_handle` resolves a path strictly and opens, by the O_NOFOLLOW walk, the deepest directory
of it that exists. Every later read, stat or write goes through that directory's fd: a command
that swaps a directory on the way for a symlink, or renames it, after the handle was opened
cannot redirect the write (it lands in the directory that was resolved, whatever its name now).
Directories still missing at resolve time are made below the held one, never through a link.
"""

from __future__ import annotations

import os
import stat as st
from pathlib import Path

from zizou.confined._fd import (
    _FILE_FLAGS,
    _child_dir,
    _mode_to_keep,
    _split,
    _symlink_or,
    _walk,
    replace_in,
)
from zizou.confined._resolve import failure, real_root, relative, resolve, resolve_unasked
from zizou.errors import PathError


class PathHandle:
    """One project file, resolved and anchored at an open directory fd. Close it (or use it as
    a context manager); the tool runner closes a call's handles when the call ends."""

    def __init__(self, root: Path, path: Path, dir_fd: int, missing: list[str]) -> None:
        self.root = root
        self.path = path  # the real path, as resolved
        self.rel = relative(root, path)  # what the approval showed
        self._dir_fd: int | None = dir_fd  # the deepest directory of the path that existed
        self._missing = missing  # directories below it still to make

    @property
    def name(self) -> str:
        return self.path.name

    def __enter__(self) -> PathHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        fd, self._dir_fd = self._dir_fd, None
        if fd is not None:
            os.close(fd)

    def _fd(self) -> int:
        if self._dir_fd is None:
            raise PathError(f"{self.rel}: the handle is closed")
        return self._dir_fd

    def stat(self) -> os.stat_result | None:
        """The file's status; None when it does not exist. A symlink is a PathError."""
        if self._missing:
            return None
        try:
            info = os.stat(self.name, dir_fd=self._fd(), follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as err:
            raise failure(self.rel, err) from err
        if st.S_ISLNK(info.st_mode):
            raise PathError(f"{self.rel} is a symbolic link; zizou does not follow it")
        return info

    def read_bytes(self, max_bytes: int) -> bytes:
        """The content of the regular file; a PathError when it holds more than `max_bytes`."""
        if self._missing:
            raise PathError(f"{self.rel} does not exist")
        try:
            fd = os.open(self.name, os.O_RDONLY | _FILE_FLAGS, dir_fd=self._fd())
        except FileNotFoundError as err:
            raise PathError(f"{self.rel} does not exist") from err
        except OSError as err:
            raise _symlink_or(self._fd(), self.name, self.rel, err, "file") from err
        with os.fdopen(fd, "rb") as file:
            if not st.S_ISREG(os.fstat(fd).st_mode):
                raise PathError(f"{self.rel} is not a regular file")
            data = file.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise PathError(f"{self.rel} is larger than {max_bytes:,} bytes; it is not read")
        return data

    def atomic_write(self, data: bytes, *, new_mode: int = 0o644) -> None:
        """Replace the file with `data` (temp file and rename in its directory), making the
        directories that were missing at resolve time. An existing file keeps its mode."""
        made: list[int] = []
        above = self.rel.split("/")[: -len(self._missing) - 1]  # the held directory
        try:
            for part in self._missing:
                above.append(part)
                parent = made[-1] if made else self._fd()
                made.append(_child_dir(parent, part, "/".join(above), True))
        except BaseException:
            for fd in made:
                os.close(fd)
            raise
        if made:  # from now on the handle holds the directory the file is in
            for fd in [self._fd(), *made[:-1]]:
                os.close(fd)
            self._dir_fd, self._missing = made[-1], []
        mode = _mode_to_keep(self._fd(), self.name, self.rel, new_mode)
        replace_in(self._fd(), self.name, self.rel, data, mode, True, real_root(self.root))


def open_handle(root: Path, raw: str, *, unasked: bool = False) -> PathHandle:
    """`raw` resolved strictly inside `root` and anchored (see the module docstring).
    `unasked`: zizou opens it on its own, so a secret file or a link to one is refused
    (`resolve_unasked`)."""
    path = resolve_unasked(root, raw) if unasked else resolve(root, raw)
    if path == real_root(root):
        raise PathError(f"{raw!r} is the project root, a directory; give a file inside it")
    base, parts = _split(root, path)
    parents = parts[:-1]
    missing: list[str] = []
    while True:
        try:
            fd = _walk(base, parents, create=False)
            break
        except FileNotFoundError:
            missing.insert(0, parents.pop())
    return PathHandle(root, path, fd, missing)


__all__ = ["PathHandle", "open_handle"]
