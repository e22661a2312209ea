"""Every project file zizou reads or writes: resolved strictly, then opened by file descriptor.

Neither the model nor the repository it works in is trusted. A clone can ship symlinks
(`lnk -> ../outside`, `loop -> loop`, `.zizou -> ~/.ssh`), and a command the model runs can swap
a directory for a symlink between a check and an open. So `resolve` walks a path component by
component from the real root, expanding each symlink itself (a link that leaves the root, or a
loop, is refused), and every read and write walks the directories again by fd, each opened with
O_NOFOLLOW relative to its parent's fd: what was checked is what gets opened. Any failure, an
OSError included, is a PathError whose message names the path. POSIX only (dir_fd, O_NOFOLLOW).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat as st
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from zizou.errors import PathError

MAX_HOPS = 40
NEW_FILE_MODE = 0o644
DIR_MODE = 0o777  # less the umask, as mkdir -p makes them
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: opening a FIFO planted in the project must not hang zizou.
_FILE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
_CHUNK = 1 << 20


# Resolving.


def check_text(raw: str) -> None:
    """Refuse path text that cannot be a plain project path."""
    if not raw:
        raise PathError("the path is empty")
    bad = next((ch for ch in raw if ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None:
        raise PathError(f"the path contains a control character ({bad!r}); use a plain path")
    if raw.startswith("~"):
        raise PathError(f"{raw!r}: `~` is not expanded; give a path relative to the project root")


def real_root(root: Path) -> Path:
    return Path(os.path.realpath(root))


def resolve(root: Path, raw: str) -> Path:
    """The real path for `raw` (relative to `root`, or absolute inside it), every symlink
    expanded and kept inside the root; components that do not exist yet may end the path."""
    check_text(raw)
    base = real_root(root)
    return base.joinpath(*_Resolver(root, base, raw).run())


class _Resolver:
    """One strict walk: `done` holds real names below the root, `todo` what is left to walk
    (last item next), each with the link whose target it came from."""

    def __init__(self, root: Path, base: Path, raw: str) -> None:
        self.roots = (base, root.absolute())
        self.base = base
        self.raw = raw
        self.done: list[str] = []
        self.todo: list[tuple[str, str | None]] = []
        self.hops = 0
        self.missing_at: int | None = None  # index in `done` of the first missing component
        start = _below(raw, self.roots)
        if start is None:
            raise PathError(self._outside())
        self._push(start, None)

    def _outside(self) -> str:
        return (
            f"{self.raw!r} resolves outside the project root ({self.base}); "
            "only paths inside the project can be used"
        )

    def _push(self, parts: list[str], link: str | None) -> None:
        self.todo.extend((part, link) for part in reversed(parts))

    def run(self) -> list[str]:
        while self.todo:
            part, link = self.todo.pop()
            if part in ("", "."):
                continue
            if part == "..":
                self._up(link)
            elif self.missing_at is not None:
                self.done.append(part)  # below a missing directory everything is new
            else:
                self._step(part)
        return self.done

    def _up(self, link: str | None) -> None:
        if not self.done:
            if link is not None:
                raise PathError(f"{link} points outside the project root; zizou does not follow it")
            raise PathError(self._outside())
        self.done.pop()
        if self.missing_at is not None and len(self.done) <= self.missing_at:
            self.missing_at = None  # back among existing directories: strict again

    def _step(self, part: str) -> None:
        rel = "/".join([*self.done, part])
        path = self.base / rel
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            self.missing_at = len(self.done)
            self.done.append(part)
            return
        except NotADirectoryError as err:
            above = "/".join(self.done)
            raise PathError(f"{above} is not a directory, so {self.raw!r} cannot be used") from err
        except OSError as err:
            raise failure(rel, err) from err
        if st.S_ISLNK(info.st_mode):
            self._follow(path, rel)
        else:
            self.done.append(part)

    def _follow(self, path: Path, rel: str) -> None:
        self.hops += 1
        if self.hops > MAX_HOPS:
            slash = "/" if self.todo else ""
            raise PathError(
                f"{self.raw!r}: symlink loop at {rel}{slash} (more than {MAX_HOPS} links "
                "followed); use a path without it"
            )
        target = read_link(path, rel)
        parts = target.split("/")
        if target.startswith("/"):
            inside = _below(target, self.roots)
            if inside is None:
                raise PathError(
                    f"{rel} points outside the project root ({target}); zizou does not follow it"
                )
            self.done, parts = [], inside
        self._push(parts, rel)


def _below(raw: str, roots: tuple[Path, ...]) -> list[str] | None:
    """The components of `raw` below the root: all of a relative path, the tail of an absolute
    one that starts with the root; None for an absolute path elsewhere."""
    if not raw.startswith("/"):
        return raw.split("/")
    parts = PurePosixPath(raw).parts
    for root in roots:
        head = root.parts
        if parts[: len(head)] == head:
            return list(parts[len(head) :])
    return None


def read_link(path: Path, rel: str) -> str:
    """The target of the symlink at `path`; a PathError if it is no link (any more)."""
    try:
        return os.readlink(path)  # noqa: PTH115 (Path.readlink drops a trailing slash)
    except OSError as err:
        raise PathError(
            f"{rel} could not be read as a symbolic link ({err.strerror or err}); "
            "it changed while zizou was using it"
        ) from err


def failure(rel: str, err: OSError) -> PathError:
    """A PathError naming `rel` for an OSError met while walking or opening it."""
    code = err.errno
    if code == errno.ELOOP:
        why = "it is a symbolic link (or a loop of them), which zizou does not follow here"
    elif code == errno.ENOTDIR:
        why = "a part of the path is not a directory"
    elif code == errno.ENOENT:
        why = "it does not exist"
    elif code == errno.EISDIR:
        why = "it is a directory"
    elif code in (errno.EACCES, errno.EPERM):
        why = "permission denied"
    else:
        why = err.strerror or str(err)
    return PathError(f"{rel or '.'}: {why}")


# Walking by file descriptor.


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
    chunks: list[bytes] = []
    size = 0
    try:
        while size < limit:
            chunk = os.read(fd, min(_CHUNK, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as err:
        raise failure(str(path), err) from err
    finally:
        os.close(fd)
    return b"".join(chunks)


def atomic_write(
    root: Path, path: Path | str, data: bytes, *, new_mode: int = NEW_FILE_MODE
) -> None:
    """Replace `path` inside `root` with `data` via a temp file in the same directory (opened
    by fd, so a swapped directory cannot redirect it). An existing file keeps its mode; missing
    parents are made. On failure the temp file is removed and the old file is left as it was.
    """
    base, parts = _split(root, path)
    if not parts:
        raise PathError("the project root is a directory, not a file")
    rel, name = "/".join(parts), parts[-1]
    with _parent(base, parts, create=True) as dir_fd:
        mode = _mode_to_keep(dir_fd, name, rel, new_mode)
        temp = f".{name[:200]}.{secrets.token_hex(4)}.tmp"
        try:
            _write_temp(dir_fd, temp, data, mode)
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            if isinstance(exc, OSError):
                raise failure(rel, exc) from exc
            raise
        with contextlib.suppress(OSError):
            os.fsync(dir_fd)  # make the rename durable


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


def _write_temp(dir_fd: int, name: str, data: bytes, mode: int) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(name, flags, 0o600, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
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
    "MAX_HOPS",
    "Listed",
    "atomic_write",
    "check_text",
    "failure",
    "make_dirs",
    "open_dir_fd",
    "open_file",
    "read_bytes",
    "read_head",
    "read_link",
    "real_root",
    "resolve",
    "scandir",
    "stat",
]
