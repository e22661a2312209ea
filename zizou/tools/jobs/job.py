"""One command zizou started: its process group, its whole output, and how it ended.

A job runs on its own, whether a tool call waits for it (a foreground command) or not (a
background job, or a foreground command moved to the background): its output is read by a task
of its own into its spool and to whoever follows it live, and its timeout, when it has one, is
kept by the job itself, so a command moved to the background is still ended at its timeout.
Killing a job ends its whole process group. When nobody can wait for it any more (the event
loop ends), the group is killed too.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

from zizou.process_groups import kill_process_group
from zizou.tools.jobs.process import (
    FINISH_S,
    abandon,
    finish,
    pump,
    start_feeding,
    start_group,
    stop_feeding,
)
from zizou.tools.jobs.spool import OutputSpool

JobState = Literal["running", "exited", "killed", "timed_out"]
log = logging.getLogger(__name__)


class Job:
    """A started command. Build it with `Job.start`."""

    def __init__(
        self,
        job_id: str,
        command: str,
        proc: asyncio.subprocess.Process,
        spool: OutputSpool,
        *,
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        on_output: Callable[[bytes], None] | None = None,
    ) -> None:
        self.id = job_id
        self.command = command
        self.proc = proc
        self.pgid = proc.pid  # a new session: its group is its leader's pid
        self.spool = spool
        self.timeout_s = timeout_s
        self.background = False  # strays holding the output belong to it; listed by /jobs
        self.started = time.monotonic()
        self.ended: float | None = None
        self.exit_code: int | None = None
        self.strays_killed = False  # processes left holding the output after the shell exited
        self.stopped_at_exit = False  # still running when the event loop ended: killed then
        # Who follows the output live (a call's progress line, the `!command` capture).
        self.listeners: list[Callable[[bytes], None]] = [on_output] if on_output else []
        self._ending: JobState | None = None  # set when zizou ends it (a kill, a timeout)
        self._feeder = start_feeding(proc, stdin or b"")
        self._done = asyncio.ensure_future(self._run())
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(timeout_s, self._time_out) if timeout_s else None
        self._killer: asyncio.Future[None] | None = None

    @classmethod
    async def start(
        cls,
        job_id: str,
        command: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        spool: OutputSpool,
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        on_output: Callable[[bytes], None] | None = None,
    ) -> Job:
        """Start `argv` (the sandbox's prefix, then `bash -c command`) in its own group;
        `on_output` follows the output from its first byte."""
        proc = await start_group(argv, cwd=cwd, env=env, piped_stdin=stdin is not None)
        return cls(
            job_id, command, proc, spool, stdin=stdin, timeout_s=timeout_s, on_output=on_output
        )

    @property
    def done(self) -> bool:
        return self._done.done()

    @property
    def state(self) -> JobState:
        if not self.done:
            return "running"
        return self._ending or "exited"

    @property
    def elapsed_s(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def _output(self, data: bytes) -> None:
        self.spool.feed(data)
        for listener in list(self.listeners):
            try:
                listener(data)
            except Exception:  # one who follows the output must not stop the reading
                log.exception("a listener of job %s failed; it hears no more", self.id)
                self.listeners.remove(listener)

    async def _run(self) -> None:
        try:
            self.strays_killed = await pump(self.proc, self._output, self._keeps_strays)
        except asyncio.CancelledError:  # the loop is closing: nothing may outlive it
            self.stopped_at_exit = True
            await self._abandoned("killed")
            raise
        except Exception:  # reading the output failed: the command is not left running
            log.exception("reading the output of job %s failed", self.id)
            await self._abandoned("killed")
            return
        await stop_feeding(self.proc, self._feeder)
        self._ended(await finish(self.proc, self._output))

    async def _abandoned(self, why: JobState) -> None:
        await abandon(self.proc, self._feeder, self._output)
        self._ending = self._ending or why
        self._ended(self.proc.returncode)

    def _ended(self, code: int | None) -> None:
        self.exit_code = code
        self.ended = time.monotonic()
        if self._timer is not None:
            self._timer.cancel()
        self.spool.close()

    def _keeps_strays(self) -> bool:
        """Processes the shell left behind are part of a background job, until it is killed."""
        return self.background and self._ending is None

    def _time_out(self) -> None:
        if not self.done and self._killer is None:
            self._killer = asyncio.ensure_future(self.kill("timed_out"))

    async def wait(self, timeout_s: float | None = None) -> bool:
        """Wait until the job ends, at most `timeout_s`; whether it ended. Cancelling the wait
        leaves the job running."""
        if not self.done:
            await asyncio.wait({self._done}, timeout=timeout_s)
        return self.done

    async def kill(self, why: JobState = "killed") -> None:
        """End the whole process group (TERM, then KILL), and wait until the job is over."""
        if self.done:
            return
        self._ending = self._ending or why
        await kill_process_group(self.pgid)
        await self.wait(2 * FINISH_S + 1)

    def status(self) -> str:
        """How it stands, in words: running, its exit code, or how zizou ended it."""
        match self.state:
            case "running":
                return f"running for {self.elapsed_s:.0f} s"
            case "timed_out":
                return f"timed out after {self.timeout_s:g} s; its process group was killed"
            case "killed":
                return "killed (its whole process group)"
            case "exited":
                return f"exit code {self.exit_code}"


__all__ = ["Job", "JobState"]
