"""The delete_file tool: remove one project file, and keep its bytes where a person can get
them back.

Nothing is unlinked. The file is renamed, on the project's own file system, into
`.zizou/trash/<UTC time>-<n>/<its project path>`, through directories opened by fd without
following symlinks: a `.zizou` or a trash directory the repository ships as a symlink is
refused, never written through. Only a regular file is deleted; a directory, a symlink, a
missing file, and anything in `.git/` or `.zizou/` are refused before anyone is asked.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
import time
from pathlib import Path

from pydantic import Field

from zizou import confined
from zizou.confined import PathHandle
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME, TRASH_DIR, project_dir
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, file_access

TRASH = f"{PROJECT_DIR_NAME}/{TRASH_DIR}"
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_TRASH_DIR_MODE = 0o700


class DeleteFileArgs(ToolArgs):
    path: str = Field(description="The file to delete.")


class DeleteFile(Tool[DeleteFileArgs]):
    """Delete one file; the user approves each deletion first.

    Its bytes are moved to .zizou/trash/. Only a regular file: not a directory, a symbolic link,
    or anything in .git/ or .zizou/.
    """

    name = "delete_file"
    access_kind = "delete"
    summary = "Delete one file once the user approves; its bytes are kept in .zizou/trash/."
    Args = DeleteFileArgs

    def access(self, args: DeleteFileArgs, ctx: ToolContext) -> Access:
        access = file_access("delete", ctx, args.path)
        try:
            _check_deletable(ctx.root, args.path, access.handle())
        except BaseException:
            access.close()
            raise
        return access

    def preview(self, args: DeleteFileArgs, access: Access, ctx: ToolContext) -> str | None:
        info = access.handle().stat()
        size = "" if info is None else f" ({info.st_size:,} bytes)"
        return f"{access.paths[0]}{size} is moved to {TRASH}/, where it can be restored from"

    def work(self, args: DeleteFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        file = access.handle()
        try:
            info = _regular_file(file)
            kept_at = _move_to_trash(ctx.root, file, info)
        except PathError as err:
            return ToolResult.error(f"{err}; nothing was deleted")
        except OSError as err:
            return ToolResult.error(_os_problem(file.rel, err))
        return ToolResult(
            ok=True,
            output=f"Deleted {file.rel} ({info.st_size:,} bytes); its bytes are kept in "
            f"{kept_at} (the user can restore it from there).",
        )


def _check_deletable(root: Path, raw: str, file: PathHandle) -> None:
    """Refuse, before anyone is asked, what delete_file never deletes."""
    parts = [part.casefold() for part in file.rel.split("/")]
    if ".git" in parts:
        raise PathError(f"{file.rel} is inside a .git directory; delete_file never deletes there")
    if parts[0] == PROJECT_DIR_NAME:
        raise PathError(f"{file.rel} is zizou's own state; delete_file never deletes in .zizou/")
    parent, name = posixpath.split(raw.rstrip("/"))
    if name not in ("", ".", "..") and confined.resolve(root, parent or ".") / name != file.path:
        raise PathError(
            f"{raw!r} is a symbolic link (to {file.rel}); delete_file deletes regular files, "
            "not links"
        )
    _regular_file(file)


def _regular_file(file: PathHandle) -> os.stat_result:
    info = file.stat()
    if info is None:
        raise PathError(f"{file.rel} does not exist")
    if stat.S_ISDIR(info.st_mode):
        raise PathError(f"{file.rel} is a directory; delete_file deletes one file at a time")
    if not stat.S_ISREG(info.st_mode):
        raise PathError(f"{file.rel} is not a regular file; delete_file deletes regular files only")
    return info


def _move_to_trash(root: Path, file: PathHandle, info: os.stat_result) -> str:
    """Rename `file` into a new batch of the project's trash; its project path there.

    The file is taken from its directory walked again by fd, and only if that directory still
    holds the very file the handle saw (`info`): a path changed since it was approved is
    refused rather than followed.
    """
    parts = file.rel.split("/")
    source = confined.open_dir_fd(root, "/".join(parts[:-1]) or ".")
    try:
        found = os.stat(parts[-1], dir_fd=source, follow_symlinks=False)
        if (found.st_dev, found.st_ino) != (info.st_dev, info.st_ino):
            raise PathError(f"{file.rel} changed while zizou was using it")
        return _rename_into_trash(root, source, parts)
    finally:
        os.close(source)


def _rename_into_trash(root: Path, source: int, parts: list[str]) -> str:
    project_dir(root)  # UnsafeProjectDir (a PathError) when `.zizou` is a symlink
    opened = [confined.open_dir_fd(root, PROJECT_DIR_NAME)]
    made: list[tuple[int, str]] = []  # (parent fd, name) of each directory made here
    try:
        opened.append(_private_dir(opened[-1], TRASH_DIR, TRASH))
        batch = _new_batch(opened[-1])
        made.append((opened[-1], batch))
        opened.append(_private_dir(opened[-1], batch, f"{TRASH}/{batch}"))
        for index, part in enumerate(parts[:-1]):
            made.append((opened[-1], part))
            where = "/".join([TRASH, batch, *parts[: index + 1]])
            opened.append(_private_dir(opened[-1], part, where))
        os.rename(parts[-1], parts[-1], src_dir_fd=source, dst_dir_fd=opened[-1])
    except BaseException:
        for parent, name in reversed(made):  # leave no empty batch behind
            with contextlib.suppress(OSError):
                os.rmdir(name, dir_fd=parent)
        raise
    else:
        for fd in (source, opened[-1]):
            with contextlib.suppress(OSError):
                os.fsync(fd)  # make the rename durable
    finally:
        for fd in opened:
            os.close(fd)
    return "/".join([TRASH, batch, *parts])


def _private_dir(parent: int, name: str, rel: str) -> int:
    """The fd of directory `name` in `parent`, made 0700 when missing; a symlink is refused."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, _TRASH_DIR_MODE, dir_fd=parent)
    link = False
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent)
    except OSError as err:
        with contextlib.suppress(OSError):
            link = stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
        if link:
            raise PathError(f"{rel} is a symbolic link; zizou does not write through it") from err
        raise confined.failure(rel, err) from err


def _new_batch(trash: int) -> str:
    """Make a new directory `<UTC time>-<n>` in the trash; its name."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    n = 1
    while True:
        try:
            os.mkdir(f"{stamp}-{n}", _TRASH_DIR_MODE, dir_fd=trash)
        except FileExistsError:
            n += 1
            continue
        return f"{stamp}-{n}"


def _os_problem(rel: str, err: OSError) -> str:
    if err.errno == errno.EXDEV:
        return (
            f"{rel} is on another file system than {PROJECT_DIR_NAME}/, so it cannot be moved "
            "to the trash; nothing was deleted"
        )
    return f"could not delete {rel}: {err.strerror or err}; nothing was deleted"


TOOL = DeleteFile()
