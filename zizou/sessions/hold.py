"""Holding a session file while a process writes it, so no other process cuts it meanwhile."""

from __future__ import annotations

from pathlib import Path

from zizou.errors import PathError


class SessionBusy(PathError):
    """Another zizou has the session open for writing: two writers would interleave its turns."""


def hold(fd: int, path: Path) -> None:
    """Hold the session file for this process while it writes it (a POSIX record lock: other
    processes are kept out, this one never is; released when the process closes the file):
    undo in another process would otherwise cut turns this one still extends."""
    try:
        import fcntl
    except ImportError:  # no advisory locks here (Windows): nothing to hold
        return
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # EAGAIN or EACCES, as the system says it
        raise SessionBusy(
            f"session {path.stem} is open in another zizou; quit it first (in the app, /undo "
            "does the same)"
        ) from None


__all__ = ["SessionBusy", "hold"]
