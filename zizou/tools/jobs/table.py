"""The session's commands: every one zizou started for the model, by id, with its output.

`run_bash` starts each command here. A foreground command whose output the model saw whole is
forgotten when it ends; one whose output was cut is kept (up to `KEEP_OUTPUTS` of them, oldest
dropped first) so `read_output` can read the rest; a background job stays until zizou exits.
The table outlives a conversation (`/clear` hands it to the next session), and `close` ends
every group it started, so no process is left behind: zizou calls it on exit, and a finalizer
does it for a table nobody closed. Every group is also told to the watchdog, which ends it if
zizou dies without closing the table (kill -9), and to the project's record of running
commands (`left_running`), from which the next zizou ends it if even the watchdog could not.
"""

from __future__ import annotations

import logging
import re
import shutil
import tempfile
import weakref
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from zizou.process_groups import end_groups_now, group_alive
from zizou.sandbox.layer import Layer
from zizou.sandbox.layer_apply import Applied
from zizou.tools.jobs.job import Job
from zizou.tools.jobs.layered import applied_notes, apply_now
from zizou.tools.jobs.left_running import JobRecord
from zizou.tools.jobs.spool import OutputSpool
from zizou.tools.jobs.watchdog import WATCHDOG, Watchdog

DEFAULT_BACKGROUND_AFTER_S = 60.0
KEEP_OUTPUTS = 50  # finished commands whose output is kept for read_output
CLOSE_GRACE_S = 1.0
log = logging.getLogger(__name__)


class JobTable:
    def __init__(
        self,
        background_after_s: float = DEFAULT_BACKGROUND_AFTER_S,
        first_id: int = 1,
        record: JobRecord | None = None,
        watchdog: Watchdog = WATCHDOG,
    ) -> None:
        """`first_id`: the number of the first job (`c1`); a resumed conversation's table starts
        past the ids its messages name, so an old id never reads a new command's output.
        `record`: the project's record of the groups running (None: not recorded)."""
        self.record = record
        self.watchdog = watchdog
        # A foreground command still running after this long is moved to the background
        # (0: never).
        self.background_after_s = background_after_s
        self._jobs: dict[str, Job] = {}
        self._next = first_id
        self._dir: Path | None = None
        self._groups: set[int] = set()  # every group started; shared with the finalizer
        self._holder: list[Path] = []  # the spool directory, for the finalizer
        # The copy-on-write layers of the commands running in one, by job id: applied when
        # the command ends, or by the finalizer once it ended them.
        self._layers: dict[str, Layer] = {}
        self._finalizer = weakref.finalize(
            self, _kill_and_remove, self._groups, self._holder, self._layers
        )

    def _spool(self, job_id: str) -> OutputSpool:
        if self._dir is None:
            try:
                self._dir = Path(tempfile.mkdtemp(prefix="zizou-output-"))
                self._holder.append(self._dir)
            except OSError:
                return OutputSpool(None)
        return OutputSpool(self._dir / f"{job_id}.out")

    async def start(
        self,
        command: str,
        argv: Sequence[str],
        *,
        cwd: Path,
        env: dict[str, str],
        stdin: bytes | None = None,
        timeout_s: float | None = None,
        on_output: Callable[[bytes], None] | None = None,
        layer: Layer | None = None,
    ) -> Job:
        """Start a command as the next job (`c1`, `c2`, ...), its output kept in a spool;
        `layer`: the copy-on-write layer it runs in (see `applied`)."""
        job_id, self._next = f"c{self._next}", self._next + 1
        spool = self._spool(job_id)
        self._prune()
        try:
            job = await Job.start(
                job_id, command, argv, cwd=cwd, env=env, spool=spool, stdin=stdin,
                timeout_s=timeout_s, on_output=on_output,
            )  # fmt: skip
        except BaseException:
            spool.remove()
            if layer is not None:
                layer.remove()
            raise
        self._watch(job.pgid)
        self._jobs[job_id] = job
        if layer is not None:
            self._layers[job_id] = layer
        return job

    def applied(self, job: Job) -> Applied | None:
        """Once `job` ended: its layer's changes moved into the project (once; None: it ran
        in no layer, or they were moved already)."""
        layer = self._layers.pop(job.id, None)
        return None if layer is None else apply_now(layer)

    def _watch(self, group: int) -> None:
        self._groups.add(group)
        started = self.watchdog.watch(group)
        if self.record is not None:
            self.record.add(group, started)

    def _unwatch(self, group: int) -> None:
        self._groups.discard(group)
        self.watchdog.unwatch(group)
        if self.record is not None:
            self.record.remove(group)

    def _prune(self) -> None:
        """Forget the groups that have no process left: their number may be reused by a group
        that is not zizou's, which `close` must never signal."""
        for group in [g for g in self._groups if not group_alive(g)]:
            self._unwatch(group)

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id.strip())

    def ids(self) -> list[str]:
        return list(self._jobs)

    def background(self) -> list[Job]:
        """The jobs in the background, running or not, oldest first (what /jobs lists)."""
        return [job for job in self._jobs.values() if job.background]

    def running(self) -> list[Job]:
        return [job for job in self._jobs.values() if job.background and not job.done]

    def finished(self, job: Job, keep: bool) -> None:
        """A foreground command ended: its output is kept for read_output when the model saw
        only part of it, else forgotten; the oldest kept outputs go past KEEP_OUTPUTS."""
        if not keep:
            self._forget(job)
            return
        kept = [j for j in self._jobs.values() if not j.background and j.done]
        for old in kept[: max(0, len(kept) - KEEP_OUTPUTS)]:
            self._forget(old)

    def _forget(self, job: Job) -> None:
        self._jobs.pop(job.id, None)
        job.spool.remove()
        self._prune()

    def take_over(self, other: JobTable) -> None:
        """Go on with `other`'s jobs (a new conversation in the same app): they stay running,
        and this table ends them on exit."""
        self._next = max(self._next, other._next)
        self._jobs = {**other._jobs, **self._jobs}
        for group in other._groups:
            self._watch(group)
        self._holder.extend(other._holder)
        self._layers.update(other._layers)
        other._jobs, other._holder[:] = {}, []
        other._groups.clear()
        other._layers.clear()

    def close(self) -> list[str]:
        """On exit: end every process group zizou started that still has a process (TERM, a
        moment's grace, then KILL) and remove the kept outputs. The background jobs that were
        running when zizou began to exit (`c3 (COMMAND)`), to tell the user."""
        ended = [
            f"{job.id} ({job.command})"
            for job in self._jobs.values()
            if job.background and (not job.done or job.stopped_at_exit)
        ]
        groups = set(self._groups)
        self._finalizer()
        for group in groups:
            self.watchdog.unwatch(group)
        if self.record is not None:
            self.record.close()
        return ended


_NAMED = re.compile(r'(?:\bjob |\bid=")c(\d+)\b')


def next_job_number(texts: Iterable[str]) -> int:
    """The first job number past every id (`job c3`, `id="c3"`) that `texts` name."""
    found = (int(match.group(1)) for text in texts for match in _NAMED.finditer(text))
    return max(found, default=0) + 1


def _kill_and_remove(groups: set[int], holder: list[Path], layers: dict[str, Layer]) -> None:
    """Every live group: TERM, then KILL after a short grace; then what the commands in a
    layer changed is moved into the project (never lost), and the outputs' directory goes."""
    end_groups_now(groups, CLOSE_GRACE_S)
    groups.clear()
    for job_id, layer in list(layers.items()):
        for line in applied_notes(apply_now(layer)):
            log.warning("command %s, ended on exit: %s", job_id, line)
    layers.clear()
    for directory in holder:
        shutil.rmtree(directory, ignore_errors=True)
    holder.clear()


__all__ = ["DEFAULT_BACKGROUND_AFTER_S", "JobTable", "next_job_number"]
