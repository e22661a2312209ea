"""The commands a zizou has running, kept in the project so that the next zizou there can end
what a zizou that died left behind.

The watchdog ends a dead zizou's commands at once; this is for when it could not (it was
killed too, or never started). Each zizou process appends to its own file,
`.zizou/jobs/PID-START` (its pid and start time), `+ PGID START` for each group it starts and
`- PGID` for each that is over, and removes the file when it exits. At start-up (`sweep`),
each file whose zizou no longer runs is read: the groups still running, each still the same
group by its leader's start time, are ended, named in a notice, and the file is removed. The
files hold numbers only, no text from the project or the commands (the notice reads the
command line from /proc), and are opened by fd without following symlinks.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

from zizou import confined
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME, project_dir
from zizou.process_groups import end_groups_now, group_command, same_group, start_time

JOBS_DIR = f"{PROJECT_DIR_NAME}/jobs"
MAX_RECORD_BYTES = 1 << 20
log = logging.getLogger(__name__)


def _owner_name(pid: int) -> str:
    return f"{pid}-{start_time(pid) or 0}"


class JobRecord:
    """This zizou's file of running groups in the project at `root`; written from the first
    group on. A project that cannot hold it (read-only, an unsafe `.zizou`) only loses the
    record, said once in the log."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.name = _owner_name(os.getpid())
        self._fd: int | None = None
        self._broken = False

    def add(self, pgid: int, started: int) -> None:
        self._append(f"+ {pgid} {started}\n")

    def remove(self, pgid: int) -> None:
        self._append(f"- {pgid}\n")

    def close(self) -> None:
        """Every group is over: the file goes."""
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        with contextlib.suppress(OSError, PathError):
            _remove(self.root, self.name)

    def _append(self, line: str) -> None:
        if self._broken:
            return
        try:
            if self._fd is None:
                self._fd = _open_record(self.root, self.name)
            os.write(self._fd, line.encode())
        except (OSError, PathError) as exc:
            self._broken = True
            log.warning("the running commands are not recorded in the project: %s", exc)


def _open_record(root: Path, name: str) -> int:
    project_dir(root)
    dir_fd = confined.open_dir_fd(root, JOBS_DIR, create=True)
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
        return os.open(name, flags, 0o600, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def _remove(root: Path, name: str) -> None:
    dir_fd = confined.open_dir_fd(root, JOBS_DIR)
    try:
        os.unlink(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def sweep(root: Path) -> list[str]:
    """End what zizou processes that died left running in the project; a notice for each
    command ended. Nothing when there is nothing to do, or the record cannot be read."""
    try:
        if confined.stat(root, JOBS_DIR) is None:
            return []
        names = [entry.name for entry in confined.scandir(root, JOBS_DIR) if entry.is_file]
    except (OSError, PathError) as exc:
        log.warning("the commands earlier zizou processes left could not be looked for: %s", exc)
        return []
    notices: list[str] = []
    for name in names:
        pid, _, started = name.partition("-")
        if not (pid.isdigit() and started.isdigit()):
            continue
        if start_time(int(pid)) == int(started) and int(started):
            continue  # that zizou still runs: its commands are its own
        notices += _end_left(root, name)
    return notices


def _end_left(root: Path, name: str) -> list[str]:
    try:
        text = confined.read_bytes(root, f"{JOBS_DIR}/{name}", MAX_RECORD_BYTES).decode()
    except (OSError, PathError, UnicodeDecodeError) as exc:
        log.warning("the record %s could not be read: %s", name, exc)
        return []
    groups: dict[int, int] = {}
    for line in text.splitlines():
        match line.split():
            case ["+", pgid, started] if pgid.isdigit() and started.isdigit():
                groups[int(pgid)] = int(started)
            case ["-", pgid, *_] if pgid.isdigit():
                groups.pop(int(pgid), None)
    running = [pgid for pgid, started in groups.items() if same_group(pgid, started)]
    commands = [group_command(pgid) for pgid in running]
    end_groups_now(running)
    with contextlib.suppress(OSError, PathError):
        _remove(root, name)
    return [
        f"ended a command that a zizou which stopped unexpectedly left running "
        f"(process group {pgid}): {command}"
        for pgid, command in zip(running, commands, strict=True)
    ]


__all__ = ["JOBS_DIR", "JobRecord", "sweep"]
