"""A job that listens on a port where nothing can reach it: a server started in the sandbox
without the network has a network of its own (loopback only), so neither the user's browser
nor zizou's other commands can connect to it. A model that started a dev server should know
that, and how to allow it, rather than tell the user to open a page that never loads.

Linux only: the job's processes are found by their process group in /proc, and a socket in
the LISTEN state is read from /proc/PID/net/tcp and tcp6 of a process whose network namespace
is not zizou's own.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from zizou.tools.jobs.job import Job

PROC = Path("/proc")
LISTEN = "0A"  # the state column of /proc/net/tcp
MAX_PORTS = 5
HOW_TO_ALLOW = (
    "to reach it, stop it (job_kill) and start it again with the network allowed: the user "
    "allows that when approving the command, or starts zizou with --network "
    "(sandbox_network = true in config.toml)"
)


def unreachable_ports(pgid: int, proc: Path = PROC) -> list[int]:
    """The ports the processes of group `pgid` listen on in a network namespace that is not
    zizou's own (none where /proc cannot tell)."""
    try:
        own = (proc / "self" / "ns" / "net").stat().st_ino
    except OSError:
        return []
    ports: set[int] = set()
    for pid in _members(pgid, proc):
        with contextlib.suppress(OSError):
            if (proc / pid / "ns" / "net").stat().st_ino == own:
                continue
            for table in ("tcp", "tcp6"):
                ports |= _listening((proc / pid / "net" / table).read_text())
            if ports:
                break  # the namespace is the job's: one process lists all its sockets
    return sorted(ports)[:MAX_PORTS]


def unreachable_note(pgid: int) -> str | None:
    """The line a result adds when the job listens where nothing outside can reach it."""
    ports = unreachable_ports(pgid)
    if not ports:
        return None
    named = ", ".join(str(port) for port in ports)
    return (
        f"[it listens on port {named} inside the sandbox, which has no network: nothing "
        f"outside the sandbox (the user's browser, your other commands) can reach it; "
        f"{HOW_TO_ALLOW}]"
    )


def with_reach(text: str, job: Job) -> str:
    """`text` about a running job, and the note when nothing outside can reach it."""
    note = unreachable_note(job.pgid)
    return f"{text}\n{note}" if note else text


def _members(pgid: int, proc: Path) -> list[str]:
    found: list[str] = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(proc):
            if entry.name.isdigit() and _group(proc / entry.name) == pgid:
                found.append(entry.name)
    return found


def _group(pid_dir: Path) -> int | None:
    try:
        stat = (pid_dir / "stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()
    return int(fields[2]) if len(fields) > 2 else None  # state, ppid, pgrp


def _listening(table: str) -> set[int]:
    ports: set[int] = set()
    for line in table.splitlines()[1:]:
        fields = line.split()
        if len(fields) > 3 and fields[3] == LISTEN:
            ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


__all__ = ["HOW_TO_ALLOW", "unreachable_note", "unreachable_ports", "with_reach"]
