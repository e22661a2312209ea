"""Where zizou's atomic writes keep their temporary files: `.zizou/tmp/`, not beside the file.

A write goes to a temp file, then takes the file's name by a rename. A zizou killed between the
two (kill -9 during an undo's restore, a crash in a tool's write) used to leave the temp file
beside the one it was replacing: a stray copy with old or half-new contents that `git add -A`
would commit. Staged in `.zizou/tmp/` (which git ignores, as all of `.zizou/`) it is never in the
project's files, and the next zizou sweeps it (`sweep_staged`, at start-up and before an undo).
A temp file's name holds the id of the process that made it, so a sweep removes only those of
processes that are gone: another zizou's write in progress is left alone.

Where the stage cannot be used (no `.zizou/` yet, or one that is not a plain directory, or on
another file system than the file), the temp file goes beside the file as before.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat as st
import time

STAGE = (".zizou", "tmp")  # zizou's own directory (zizou.paths.PROJECT_DIR_NAME), then tmp
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_STAGED = re.compile(r"(\d+)-[0-9a-f]{8}\.tmp")
STALE_S = 86_400.0  # a temp file this old is left over, whoever made it


def staged_name() -> str:
    """A temp file's name in the stage: this process's id, then a random part."""
    return f"{os.getpid()}-{secrets.token_hex(4)}.tmp"


def open_stage(root_fd: int) -> int | None:
    """An fd of `.zizou/tmp` below the open root, made when `.zizou` exists; None when there
    is no `.zizou`, or either is not a plain directory (a symlink is never followed)."""
    try:
        zizou = os.open(STAGE[0], _DIR_FLAGS, dir_fd=root_fd)
    except OSError:
        return None
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(STAGE[1], 0o700, dir_fd=zizou)
        return os.open(STAGE[1], _DIR_FLAGS, dir_fd=zizou)
    except OSError:
        return None
    finally:
        os.close(zizou)


def sweep_stage(root_fd: int, now: float | None = None) -> int:
    """Remove the temp files that processes now gone left in the stage; how many."""
    now = time.time() if now is None else now
    try:
        stage = os.open(f"{STAGE[0]}/{STAGE[1]}", _DIR_FLAGS, dir_fd=root_fd)
    except OSError:
        return 0
    removed = 0
    try:
        for name in os.listdir(stage):  # noqa: PTH208 (an fd: pathlib cannot list one)
            found = _STAGED.fullmatch(name)
            if found is None:
                continue
            with contextlib.suppress(OSError):
                info = os.stat(name, dir_fd=stage, follow_symlinks=False)
                stale = now - info.st_mtime > STALE_S
                if st.S_ISREG(info.st_mode) and (stale or not _alive(int(found.group(1)))):
                    os.unlink(name, dir_fd=stage)
                    removed += 1
    finally:
        os.close(stage)
    return removed


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process: it exists
    return True


__all__ = ["STAGE", "open_stage", "staged_name", "sweep_stage"]
