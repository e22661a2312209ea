"""Ending a command and everything it started: signal its whole process group, TERM then KILL.

run_bash and the TUI's `!command` start each command in a new session, so its process group
holds every process it spawned (pipelines, background jobs, dev servers) and can be ended at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

KILL_GRACE_S = 2.0
POLL_S = 0.05


async def kill_process_group(pgid: int, grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM every process in group `pgid`, then SIGKILL whatever is left after `grace_s`."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGTERM)
    try:
        for _ in range(max(1, round(grace_s / POLL_S))):
            if not group_alive(pgid):
                return
            await asyncio.sleep(POLL_S)
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGKILL)


def group_alive(pgid: int) -> bool:
    """True while a process of the group still runs (zombies waiting to be reaped do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _live_member_in_proc(pgid)


def _live_member_in_proc(pgid: int, proc: Path = Path("/proc")) -> bool:
    """Zombies still answer signal 0; without an init that reaps them, they linger (containers).
    /proc tells them apart on Linux; elsewhere assume a signalled group is alive. A process may
    end while the table is read (its entry then fails with ESRCH or ENOENT): it is skipped."""
    if not (proc / "self" / "stat").exists():
        return True
    for entry in proc.iterdir():  # names only: nothing is looked at before the read
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_bytes().decode(errors="replace")
        except OSError:  # ProcessLookupError (ESRCH) included
            continue
        state, _ppid, group = text[text.rfind(")") + 2 :].split()[:3]
        if int(group) == pgid and state != "Z":
            return True
    return False


__all__ = ["group_alive", "kill_process_group"]
