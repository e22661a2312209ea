"""zizou's side of the watchdog (`zizou/process_groups/watchdog_script.py`): one per zizou process,
started with the first command, told of every process group zizou starts and of each that is
over, so that zizou's death, however it comes, ends the commands it left running.

A watchdog that cannot be started, or that died, is logged and started again at the next
group; the groups are then still ended when zizou exits normally (`JobTable.close`), and a
zizou that dies without either is swept up by the next one in the project (`left_running`).
"""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
from pathlib import Path

from zizou.process_groups import start_time

SCRIPT = Path(__file__).resolve().parents[2] / "process_groups" / "watchdog_script.py"
log = logging.getLogger(__name__)


class Watchdog:
    def __init__(self, script: Path = SCRIPT) -> None:
        self.script = script
        self._proc: subprocess.Popen[bytes] | None = None
        self._watched: dict[int, int] = {}  # group id: its leader's start time
        self._lock = threading.Lock()  # tables in several threads share it

    @property
    def pid(self) -> int | None:
        """The watchdog's process id, while it runs."""
        return self._proc.pid if self._proc is not None and self._proc.poll() is None else None

    def watch(self, pgid: int) -> int:
        """Group `pgid` was started: end it if zizou dies. Its leader's start time (0: unknown)."""
        started = start_time(pgid) or 0
        with self._lock:
            self._watched[pgid] = started
            self._send(f"+ {pgid} {started}\n")
        return started

    def unwatch(self, pgid: int) -> None:
        """Group `pgid` is over (or ended by zizou): nothing to do about it any more."""
        with self._lock:
            if self._watched.pop(pgid, None) is not None:
                self._send(f"- {pgid}\n")

    def _send(self, line: str) -> None:
        proc = self._proc
        if proc is not None and proc.poll() is None and proc.stdin is not None:
            try:
                proc.stdin.write(line.encode())
                proc.stdin.flush()
                return
            except OSError:
                log.warning("the commands' watchdog stopped reading; it is started again")
        self._start()

    def _start(self) -> None:
        """A watchdog told of every group watched now."""
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(self.script)],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            log.warning("the commands' watchdog could not be started: %s", exc)
            self._proc = None
            return
        assert self._proc.stdin is not None
        lines = "".join(f"+ {pgid} {started}\n" for pgid, started in self._watched.items())
        try:
            self._proc.stdin.write(lines.encode())
            self._proc.stdin.flush()
        except OSError as exc:
            log.warning("the commands' watchdog could not be told of the commands: %s", exc)


WATCHDOG = Watchdog()  # zizou's death is the process's: one watchdog for all its job tables

__all__ = ["WATCHDOG", "Watchdog"]
