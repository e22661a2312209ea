"""Which debug log this process writes: `zizou-debug.log`, unless another zizou holds it.

Two zizou processes in one project (the app in one terminal, `zizou -p` in another) would
otherwise truncate one another's log at each message, leaving neither turn readable. The first
process to write takes an advisory lock (flock) on `zizou-debug.log` and keeps it while it runs;
a process that finds the lock taken writes `zizou-debug.PID.log` instead, for all its turns. The
lock goes with the process, however it ends, so the next zizou gets the usual name back.
"""

from __future__ import annotations

import fcntl
import os
import threading
from pathlib import Path

from zizou import confined
from zizou.paths import debug_log_path, own_debug_log_path

_chosen: dict[Path, Path] = {}  # by project root: the log this process writes there
_held: list[int] = []  # the fds that hold the locks, open until the process ends
_lock = threading.Lock()


def claim_debug_log(root: Path, mode: int) -> Path:
    """The path of this process's debug log in `root`: chosen once, kept for the process.
    Raises what opening the shared log raises (a symlink in its place, no permission)."""
    with _lock:
        if (chosen := _chosen.get(root)) is None:
            chosen = _chosen[root] = _first_choice(root, mode)
        return chosen


def _first_choice(root: Path, mode: int) -> Path:
    shared = debug_log_path(root)
    fd = confined.open_file(root, shared, os.O_CREAT | os.O_WRONLY, mode)  # not truncated
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return own_debug_log_path(root, os.getpid())
    except BaseException:
        os.close(fd)
        raise
    os.set_inheritable(fd, False)
    _held.append(fd)
    return shared


__all__ = ["claim_debug_log"]
