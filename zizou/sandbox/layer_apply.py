"""Moving a command's changes from its copy-on-write layer (layer.py) into the real project.

The upper directory holds exactly what the command wrote: new and changed files (and links),
a whiteout (a character device 0/0) for each entry it deleted, and directories, marked opaque
when the command deleted one and made it again (whatever the real one holds that the layer
does not was deleted). Each is applied in turn, through directory file descriptors that never
follow a link in the project, and reported with what undo needs: a regular file's bytes before
(read just before it is replaced) and the hash of its bytes after.

A file the command changed or deleted that also changed in the project while the command ran
(its change time is not before the layer was made: the user's editor, another program) is a
conflict, and no one's work is dropped: the project keeps its own version, and the command's
version (if it left one) is kept under `.zizou/conflicts/` and named. What lies in the
directories every zizou walk skips (`node_modules/`, `.venv/`, ...) is applied but only named,
never read for undo.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat as st
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from zizou import confined
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME, project_dir
from zizou.sandbox.layer import Layer, is_whiteout
from zizou.skipped_dirs import SKIPPED_DIRS

Change = Literal["created", "changed", "deleted"]
CONFLICTS = "conflicts"
OPAQUE = "user.overlay.opaque"
CHUNK = 1 << 20
# The bytes before read for one command, all files together: past it (a `make clean` of a
# large tree), the files' changes are applied but their bytes before are not kept for undo.
READ_BUDGET = 256 * 1024 * 1024
NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class AppliedFile:
    """One path the command created, changed or deleted, now so in the project. `before`:
    a regular file's bytes before (None: it did not exist, was not a regular file, or was
    larger than the limit: `too_large`); `after`: the SHA-256 of a regular file's bytes after
    (None: deleted, or not a regular file); `regular`: every side of it is a regular file."""

    path: str
    change: Change
    before: bytes | None = None
    mode: int | None = None  # its permission bits before
    after: str | None = None
    regular: bool = True
    too_large: bool = False


@dataclass(frozen=True)
class Conflict:
    """A path that changed in the project while the command ran, and that the command changed
    too: the project's version stays, the command's is at `kept` (None: it deleted it)."""

    path: str
    kept: str | None


@dataclass
class Applied:
    """What applying a layer did: the files moved in, the skipped directories' entries moved
    in without being read (`skipped`), the conflicts, and what could not be applied, with why
    (left in the layer's directory, `left`)."""

    files: list[AppliedFile] = field(default_factory=list)
    skipped: list[tuple[str, Change]] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    left: Path | None = None


class _Applier:
    def __init__(self, layer: Layer, limit: int) -> None:
        self.layer = layer
        self.limit = limit
        self.budget = READ_BUDGET  # bytes before still to read, for all its files together
        self.out = Applied()
        self.aside = f"{PROJECT_DIR_NAME}/{CONFLICTS}/{layer.directory.name}"

    def directory(self, rel: str, real_fd: int, upper: Path, read: bool) -> None:
        """Apply the layer's directory `upper` to the project's `rel` (open as `real_fd`)."""
        names = sorted(entry.name for entry in upper.iterdir())
        if rel and _opaque(upper):  # made again: what the project has and it lacks went
            for name in sorted(set(os.listdir(real_fd)) - set(names)):
                self.delete(_join(rel, name), real_fd, name, read)
        for name in names:
            path, source = _join(rel, name), upper / name
            try:
                self.entry(path, real_fd, name, source, read and name not in SKIPPED_DIRS)
            except OSError as err:
                self.out.failed.append(f"{path}: {err.strerror or err}")

    def entry(self, rel: str, real_fd: int, name: str, source: Path, read: bool) -> None:
        info, real = source.lstat(), _lstat(real_fd, name)
        if is_whiteout(info):
            if real is not None:
                self.delete(rel, real_fd, name, read)
            return
        if st.S_ISDIR(info.st_mode):
            self.into_directory(rel, real_fd, name, source, info, read, real)
            return
        if real is not None and st.S_ISDIR(real.st_mode):
            self.delete(rel, real_fd, name, read)  # the command put a file where it was
            real = _lstat(real_fd, name)
        if real is not None and self.changed_meanwhile(real):
            self.conflict(rel, source)
            return
        if not read:
            self.skipped(rel, "changed")
            _move(source, real_fd, name)
            return
        before, mode, large = self.before(real_fd, name, real)
        after = _digest(source) if st.S_ISREG(info.st_mode) else None
        regular = st.S_ISREG(info.st_mode) and (real is None or st.S_ISREG(real.st_mode))
        _move(source, real_fd, name)
        change: Change = "created" if real is None else "changed"
        self.out.files.append(AppliedFile(rel, change, before, mode, after, regular, large))

    def into_directory(
        self,
        rel: str,
        real_fd: int,
        name: str,
        source: Path,
        info: os.stat_result,
        read: bool,
        real: os.stat_result | None,
    ) -> None:
        if real is not None and not st.S_ISDIR(real.st_mode):
            self.delete(rel, real_fd, name, read)  # the command put a directory where it was
            real = _lstat(real_fd, name)
        if real is None:
            os.mkdir(name, st.S_IMODE(info.st_mode), dir_fd=real_fd)
            if not read and name in SKIPPED_DIRS:
                self.skipped(rel + "/", "created")
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=real_fd)
        try:
            self.directory(rel, fd, source, read)
        finally:
            os.close(fd)

    def delete(self, rel: str, real_fd: int, name: str, read: bool) -> None:
        """Delete the project's `rel`, a directory with what it holds, but never what changed
        while the command ran."""
        real = _lstat(real_fd, name)
        if real is None:
            return
        if st.S_ISDIR(real.st_mode):
            if not read and name in SKIPPED_DIRS:
                self.skipped(rel + "/", "deleted")
            fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | NOFOLLOW, dir_fd=real_fd)
            try:
                for child in sorted(os.listdir(fd)):  # noqa: PTH208
                    self.delete(_join(rel, child), fd, child, read and child not in SKIPPED_DIRS)
            finally:
                os.close(fd)
            with contextlib.suppress(OSError):  # what changed meanwhile is still in it
                os.rmdir(name, dir_fd=real_fd)
            return
        if self.changed_meanwhile(real):
            self.out.conflicts.append(Conflict(rel, None))
            return
        if not read:
            self.skipped(rel, "changed")
            os.unlink(name, dir_fd=real_fd)
            return
        before, mode, large = self.before(real_fd, name, real)
        os.unlink(name, dir_fd=real_fd)
        regular = st.S_ISREG(real.st_mode)
        self.out.files.append(AppliedFile(rel, "deleted", before, mode, None, regular, large))

    def before(
        self, dir_fd: int, name: str, real: os.stat_result | None
    ) -> tuple[bytes | None, int | None, bool]:
        """A file's bytes before (within the file limit and what is left of the budget)."""
        before, mode, large = _before(dir_fd, name, real, min(self.limit, self.budget))
        self.budget -= len(before or b"")
        return before, mode, large

    def changed_meanwhile(self, real: os.stat_result) -> bool:
        return real.st_ctime_ns >= self.layer.started_ns

    def conflict(self, rel: str, source: Path) -> None:
        """Keep the command's version of `rel` beside the project's, under .zizou/."""
        aside = f"{self.aside}/{rel}"
        try:
            project_dir(self.layer.root)
            parent, _, name = aside.rpartition("/")
            fd = confined.open_dir_fd(self.layer.root, parent, create=True)
            try:
                _move(source, fd, name)
            finally:
                os.close(fd)
        except (OSError, PathError) as err:  # it stays in the layer, which is then kept
            self.out.failed.append(f"{rel}: the command's version was not kept aside: {err}")
            return
        self.out.conflicts.append(Conflict(rel, aside))

    def skipped(self, rel: str, change: Change) -> None:
        top = _skipped_top(rel)
        if not any(name == top for name, _ in self.out.skipped):
            self.out.skipped.append((top, change))


def apply_layer(layer: Layer, limit: int) -> Applied:
    """Move the command's changes into the project, then remove the layer (kept, and named
    in `left`, when something could not be applied). `limit`: the largest file whose bytes
    before are read."""
    applier = _Applier(layer, limit)
    if layer.upper.is_dir():
        fd = os.open(layer.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            applier.directory("", fd, layer.upper, True)
        finally:
            os.close(fd)
    out = applier.out
    if out.failed:
        out.left = layer.directory
    else:
        layer.remove()
    return out


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name


def _skipped_top(rel: str) -> str:
    """The first skipped directory on the path, as `dir/` (the path itself otherwise)."""
    parts = rel.rstrip("/").split("/")
    for index, part in enumerate(parts):
        if part in SKIPPED_DIRS:
            return "/".join(parts[: index + 1]) + "/"
    return rel


def _opaque(directory: Path) -> bool:
    try:
        return os.getxattr(directory, OPAQUE, follow_symlinks=False) == b"y"
    except OSError:
        return False


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _before(
    dir_fd: int, name: str, real: os.stat_result | None, limit: int
) -> tuple[bytes | None, int | None, bool]:
    """A regular file's bytes (None past `limit`: then True), and its permission bits."""
    if real is None or not st.S_ISREG(real.st_mode):
        return None, None, False
    mode = st.S_IMODE(real.st_mode)
    if real.st_size > limit:
        return None, mode, True
    fd = os.open(name, os.O_RDONLY | NOFOLLOW, dir_fd=dir_fd)
    try:
        data = confined.read_fd(fd, limit + 1)
    finally:
        os.close(fd)
    return (None, mode, True) if len(data) > limit else (data, mode, False)


def _digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK):
            hasher.update(chunk)
    return hasher.hexdigest()


def _move(source: Path, dir_fd: int, name: str) -> None:
    """Put `source` at `name` (replacing what is there): a rename, or on another file system
    a copy written beside it, then renamed over it."""
    try:
        os.rename(source, name, dst_dir_fd=dir_fd)
        return
    except OSError as err:
        if err.errno != errno.EXDEV:
            raise
    info = source.lstat()
    temp = f".{name[:200]}.{os.getpid()}.layer"
    if st.S_ISLNK(info.st_mode):
        os.symlink(source.readlink(), temp, dir_fd=dir_fd)
    elif st.S_ISREG(info.st_mode):
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW
        out = os.open(temp, flags, st.S_IMODE(info.st_mode), dir_fd=dir_fd)
        with os.fdopen(out, "wb") as target, source.open("rb") as handle:
            shutil.copyfileobj(handle, target, CHUNK)
    else:
        raise OSError(errno.EXDEV, "a special file cannot be moved to another file system")
    os.rename(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


__all__ = ["Applied", "AppliedFile", "Conflict", "apply_layer"]
