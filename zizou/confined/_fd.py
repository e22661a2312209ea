"""Opening, reading, writing and listing project files by file descriptor: each directory opened
with O_NOFOLLOW relative to its parent's fd, from the root down, so what `resolve` checked is
what gets opened. See `zizou.confined` for why.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat as st
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from zizou.confined._resolve import check_size, failure, real_root
from zizou.confined._staging import open_stage, staged_name, sweep_stage
from zizou.errors import PathError

NEW_FILE_MODE = 0o644
DIR_MODE = 0o777  # less the umask, as mkdir -p makes them
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO planted in the project must not hang zizou.
_FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_CHUNK = 1 << 20


def _split(root: Path, path: Path | str) -> tuple[Path, list[str]]:
    """The real root and the components of `path` (absolute inside the root, or relative)."""
    base = real_root(root)
    candidate = rel = Path(path)
    if candidate.is_absolute():
        for head in (base, root.absolute()):
            if candidate.is_relative_to(head):
                rel = candidate.relative_to(head)
                break
        else:
            raise PathError(f"{candidate} is outside the project root ({base})")
    parts = [part for part in rel.parts if part != "."]
    if ".." in parts:
        raise PathError(f"{path}: resolve the path before opening it")
    check_size(base, parts, str(path))
    return base, parts


def _open_root(base: Path) -> int:
    try:
        return os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as err:
        raise failure(str(base), err) from err


def _symlink_or(dir_fd: int, name: str, rel: str, err: OSError, expected: str) -> PathError:
    """ELOOP/ENOTDIR under O_NOFOLLOW: say so plainly when a symlink is what was met."""
    if err.errno in (errno.ELOOP, errno.ENOTDIR):
        with contextlib.suppress(OSError):
            if st.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
                return PathError(
                    f"{rel} is a symbolic link where zizou expected a {expected} (the path "
                    "changed while zizou was using it, or the project ships the link); "
                    "zizou does not follow it"
                )
    return failure(rel, err)


def _child_dir(dir_fd: int, name: str, rel: str, create: bool) -> int:
    """The fd of directory `name` in `dir_fd`, made first when missing and `create`.

    FileNotFoundError passes through, so callers can tell "missing" from "unsafe".
    """
    try:
        return _open_dir_in(dir_fd, name, rel)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.mkdir(name, DIR_MODE, dir_fd=dir_fd)
    except FileExistsError:
        pass  # made meanwhile by someone else: open it, still without following
    except OSError as err:
        raise failure(rel, err) from err
    return _open_dir_in(dir_fd, name, rel)


def _open_dir_in(dir_fd: int, name: str, rel: str) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise _symlink_or(dir_fd, name, rel, err, "directory") from err


def _walk(base: Path, parts: list[str], create: bool) -> int:
    """The fd of the directory `parts` below the real root `base`, walked with O_NOFOLLOW."""
    fd = _open_root(base)
    try:
        for index, name in enumerate(parts):
            child = _child_dir(fd, name, "/".join(parts[: index + 1]), create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def _parent(base: Path, parts: list[str], create: bool = False) -> Iterator[int]:
    """The fd of the directory holding `parts[-1]`; missing directories are a PathError."""
    rel = "/".join(parts)
    try:
        fd = _walk(base, parts[:-1], create)
    except FileNotFoundError as err:
        raise PathError(f"{rel} does not exist") from err
    try:
        yield fd
    finally:
        os.close(fd)


def open_dir_fd(root: Path, path: Path | str, *, create: bool = False) -> int:
    """An fd of the directory `path` inside `root` (the caller closes it); with `create`,
    missing directories are made on the way, never through a symlink."""
    base, parts = _split(root, path)
    return _dir_fd(base, parts, create)


def _dir_fd(base: Path, parts: list[str], create: bool) -> int:
    try:
        return _walk(base, parts, create)
    except FileNotFoundError as err:
        raise PathError(f"{'/'.join(parts) or '.'} does not exist") from err


def make_dirs(root: Path, path: Path | str) -> None:
    """Make the directory `path` and its parents inside `root`; a symlink on the way is refused."""
    os.close(open_dir_fd(root, path, create=True))


def stat(root: Path, path: Path | str) -> os.stat_result | None:
    """The status of `path` itself, None when it (or a directory above it) does not exist.

    A symlink is a PathError: a resolved path has none, so one is a path that changed.
    """
    base, parts = _split(root, path)
    if not parts:
        return base.stat()
    rel = "/".join(parts)
    try:
        fd = _walk(base, parts[:-1], create=False)
    except FileNotFoundError:
        return None
    try:
        info = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as err:
        raise failure(rel, err) from err
    finally:
        os.close(fd)
    if st.S_ISLNK(info.st_mode):
        raise PathError(
            f"{rel} is a symbolic link (the path changed while zizou was using it); "
            "zizou does not follow it"
        )
    return info


# Files.


def open_file(
    root: Path, path: Path | str, flags: int, mode: int = 0o600, *, parents: bool = False
) -> int:
    """An fd of the regular file `path` inside `root`, opened with `flags` and O_NOFOLLOW.

    With `parents`, missing directories are made on the way. The caller closes the fd.
    """
    base, parts = _split(root, path)
    if not parts:
        raise PathError("the project root is a directory, not a file")
    rel = "/".join(parts)
    with _parent(base, parts, parents) as dir_fd:
        try:
            fd = os.open(parts[-1], flags | _FILE_FLAGS, mode, dir_fd=dir_fd)
        except OSError as err:
            raise _symlink_or(dir_fd, parts[-1], rel, err, "file") from err
    try:
        info = os.fstat(fd)
        if not st.S_ISREG(info.st_mode):
            what = "a directory" if st.S_ISDIR(info.st_mode) else "not a regular file"
            raise PathError(f"{rel} is {what}; only regular files are read or written")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bytes(root: Path, path: Path | str, max_bytes: int) -> bytes:
    """The content of the regular file `path`; a PathError when it holds more than `max_bytes`."""
    data = _read(root, path, max_bytes + 1)
    if len(data) > max_bytes:
        rel = "/".join(_split(root, path)[1])
        raise PathError(f"{rel} is larger than {max_bytes:,} bytes; it is not read")
    return data


def read_head(root: Path, path: Path | str, max_bytes: int) -> bytes:
    """At most the first `max_bytes` of the regular file `path`."""
    return _read(root, path, max_bytes)


def _read(root: Path, path: Path | str, limit: int) -> bytes:
    fd = open_file(root, path, os.O_RDONLY)
    try:
        return read_fd(fd, limit)
    except OSError as err:
        raise failure(str(path), err) from err
    finally:
        os.close(fd)


def read_fd(fd: int, limit: int) -> bytes:
    """At most `limit` bytes of the open file `fd`, from where it stands."""
    chunks: list[bytes] = []
    size = 0
    while size < limit:
        chunk = os.read(fd, min(_CHUNK, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def atomic_write(
    root: Path,
    path: Path | str,
    data: bytes,
    *,
    new_mode: int = NEW_FILE_MODE,
    durable: bool = True,
) -> None:
    """Replace `path` inside `root` with `data` via a temp file in the same directory (opened
    by fd, so a swapped directory cannot redirect it). An existing file keeps its mode; missing
    parents are made. On failure the temp file is removed and the old file is left as it was.
    `durable=False` skips the fsyncs: for copies and caches rewritten often and safe to lose
    (the rename still leaves either the old file or the new one whole).
    """
    base, parts = _split(root, path)
    if not parts:
        raise PathError("the project root is a directory, not a file")
    rel, name = "/".join(parts), parts[-1]
    with _parent(base, parts, create=True) as dir_fd:
        mode = _mode_to_keep(dir_fd, name, rel, new_mode)
        replace_in(dir_fd, name, rel, data, mode, durable, base)


def replace_in(
    dir_fd: int, name: str, rel: str, data: bytes, mode: int, durable: bool, base: Path
) -> None:
    """Replace `name` in the directory `dir_fd` with `data`: a temp file in the stage of the
    project whose real root is `base` (`_staging.py`), or beside the file, renamed over it; on
    failure the temp file is removed and the old file is left as it was."""
    stage = _stage(base)
    if stage is not None:
        try:
            if _replace(stage, staged_name(), dir_fd, name, rel, data, mode, durable):
                return
        finally:
            os.close(stage)
    temp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
    _replace(dir_fd, temp, dir_fd, name, rel, data, mode, durable, fall_back=False)


def sweep_staged(root: Path) -> int:
    """Remove what atomic writes of processes now gone left in the stage (`_staging.py`):
    at start-up, and before an undo. How many temp files went."""
    try:
        root_fd = _open_root(real_root(root))
    except PathError:
        return 0
    try:
        return sweep_stage(root_fd)
    finally:
        os.close(root_fd)


def _stage(base: Path) -> int | None:
    try:
        root_fd = _open_root(base)
    except PathError:
        return None
    try:
        return open_stage(root_fd)
    finally:
        os.close(root_fd)


def _replace(
    temp_dir: int,
    temp: str,
    dir_fd: int,
    name: str,
    rel: str,
    data: bytes,
    mode: int,
    durable: bool,
    fall_back: bool = True,
) -> bool:
    """Write `temp` in `temp_dir`, then rename it to `name` in `dir_fd`; False (nothing
    changed) when `fall_back` and the two are on different file systems."""
    try:
        _write_temp(temp_dir, temp, data, mode, durable)
        os.replace(temp, name, src_dir_fd=temp_dir, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=temp_dir)
        if fall_back and isinstance(exc, OSError) and exc.errno == errno.EXDEV:
            return False
        if isinstance(exc, OSError):
            raise failure(rel, exc) from exc
        raise
    if durable:
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)  # make the rename durable
    return True


def _mode_to_keep(dir_fd: int, name: str, rel: str, new_mode: int) -> int:
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return new_mode
    except OSError as err:
        raise failure(rel, err) from err
    if st.S_ISLNK(info.st_mode):
        raise PathError(
            f"{rel} is a symbolic link (the path changed while zizou was using it); "
            "zizou does not write through it"
        )
    if not st.S_ISREG(info.st_mode):
        what = "a directory" if st.S_ISDIR(info.st_mode) else "not a regular file"
        raise PathError(f"{rel} is {what}; it cannot be overwritten")
    return st.S_IMODE(info.st_mode)


def _write_temp(dir_fd: int, name: str, data: bytes, mode: int, durable: bool) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if durable:
            os.fsync(fd)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


# Directories.


@dataclass(frozen=True)
class Listed:
    """One directory entry, as lstat sees it (mode 0: it could not be read)."""

    name: str
    mode: int
    size: int
    mtime_ns: int
    link: str | None = None  # a symlink's target

    @property
    def is_dir(self) -> bool:
        return st.S_ISDIR(self.mode)

    @property
    def is_file(self) -> bool:
        return st.S_ISREG(self.mode)

    @property
    def is_link(self) -> bool:
        return st.S_ISLNK(self.mode)


def scandir(root: Path, path: Path | str) -> list[Listed]:
    """The entries of the directory `path` inside `root`, read through its fd."""
    base, parts = _split(root, path)
    fd = _dir_fd(base, parts, create=False)
    try:
        with os.scandir(fd) as entries:
            return [_listed(fd, entry) for entry in entries]
    except OSError as err:
        raise failure("/".join(parts) or ".", err) from err
    finally:
        os.close(fd)


def _listed(dir_fd: int, entry: os.DirEntry[str]) -> Listed:
    try:
        info = entry.stat(follow_symlinks=False)
        link = os.readlink(entry.name, dir_fd=dir_fd) if st.S_ISLNK(info.st_mode) else None
    except OSError:
        return Listed(entry.name, 0, 0, 0)
    return Listed(entry.name, info.st_mode, info.st_size, info.st_mtime_ns, link)


__all__ = [
    "Listed",
    "atomic_write",
    "make_dirs",
    "open_dir_fd",
    "open_file",
    "read_bytes",
    "read_head",
    "scandir",
    "stat",
    "sweep_staged",
]
