"""Ending a command and everything it started: signal its whole process group, TERM then KILL.

run_bash and the TUI's `!command` start each command in a new session, so its process group
holds every process it spawned (pipelines, background jobs, dev servers) and can be ended at once.
A group is named by its id and its leader's start time (`start_time`), so a group ended long
ago is never taken for another that was given the same number since (`same_group`).

Standard library only: the watchdog (`watchdog_script.py`) runs this module on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Iterable
from pathlib import Path

KILL_GRACE_S = 2.0
POLL_S = 0.05
PROC = Path("/proc")


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


def end_groups_now(groups: Iterable[int], grace_s: float = 1.0) -> None:
    """`kill_process_group` for many groups at once, blocking: TERM to every live one, then
    KILL to those left after `grace_s`."""
    alive = {group for group in groups if group_alive(group)}
    for group in alive:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while alive and time.monotonic() < deadline:
        time.sleep(0.02)
        alive = {group for group in alive if group_alive(group)}
    for group in alive:
        with contextlib.suppress(OSError):
            os.killpg(group, signal.SIGKILL)


def start_time(pid: int, proc: Path = PROC) -> int | None:
    """When process `pid` started (/proc/PID/stat's starttime, in clock ticks since boot): with
    the pid, it names one process for as long as the machine runs. None: no such process, or
    no /proc to ask."""
    try:
        text = (proc / str(pid) / "stat").read_bytes().decode(errors="replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else None


def same_group(pgid: int, started: int) -> bool:
    """Whether group `pgid`, whose leader started at `started` (0: not known), still runs as
    that group: its leader runs with that start time, or the leader is gone and members are
    left (the kernel gives no new process the number of a group that still has members)."""
    now = start_time(pgid)
    if now is not None and started and now != started:  # the number names another process
        return False
    return group_alive(pgid)


def group_command(pgid: int, proc: Path = PROC) -> str:
    """The command line of a process of the group (its leader's when it runs), for a notice."""
    members = [pgid] + [int(e.name) for e in _entries(proc) if _group_of(e) == pgid]
    for pid in members:
        try:
            raw = (proc / str(pid) / "cmdline").read_bytes()
        except OSError:
            continue
        words = raw.rstrip(b"\0").decode(errors="replace").split("\0")
        if words != [""]:
            line = " ".join(words)
            return line if len(line) <= 120 else line[:119] + "…"
    return "(command unknown)"


def _entries(proc: Path) -> list[Path]:
    try:
        return [entry for entry in proc.iterdir() if entry.name.isdigit()]
    except OSError:
        return []


def _group_of(entry: Path) -> int | None:
    try:
        text = (entry / "stat").read_bytes().decode(errors="replace")
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    return int(fields[2]) if len(fields) > 2 else None


def _live_member_in_proc(pgid: int, proc: Path = PROC) -> bool:
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


__all__ = [
    "end_groups_now",
    "group_alive",
    "group_command",
    "kill_process_group",
    "same_group",
    "start_time",
]
