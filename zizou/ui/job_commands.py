"""`/jobs`: the commands running in the background, with their state and last lines; stopping
one (`/jobs kill c3`), and reading one's whole output (`/jobs c3`).

Stopping a job waits for its process group to end (up to a few seconds), so it runs in a
worker and says when it is done; the prompt stays live meanwhile.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zizou.tools.jobs.view import KEPT_NOTE, line_text
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.tools.jobs import Job, JobTable
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening

LAST_LINES = 3  # of each job, in the list
LINE_CHARS = 160
FIX = "/jobs kill ID stops one (its whole process group); /jobs ID shows its whole output."


def job_lines(job: Job) -> list[str]:
    """One job in the list: its id, state and command, then its last lines, indented."""
    lines = [f"  {job.id} · {job.status()} · {job.command}"]
    last = job.spool.last(LAST_LINES)
    lines += [f"      {line_text(line, LINE_CHARS)[0]}" for line in last]
    if not last:
        lines.append("      (no output yet)")
    return lines


class JobCommands:
    def __init__(self, host: Host, opening: Opening, notices: Notices) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices

    @property
    def jobs(self) -> JobTable:
        return self.opening.current.kernel.jobs

    @slash(
        "jobs",
        "[ID|kill ID]",
        help="background jobs: list them, read one's output, stop one",
        section="tools",
    )
    async def command(self, args: list[str]) -> None:
        if not args:
            await self.list()
        elif args[0].lower() == "kill" and len(args) == 2:
            await self.kill(args[1])
        elif len(args) == 1:
            await self.show(args[0])
        else:
            await self.notices.add_notice(f"Unknown use of /jobs: {' '.join(args)}", "warning", FIX)

    async def list(self) -> None:
        jobs = self.jobs.background()
        if not jobs:
            await self.notices.add_notice(
                "No background jobs. The model starts one with run_bash's `background: true`; "
                "a command still running after a minute moves to the background."
            )
            return
        running = sum(not job.done for job in jobs)
        lines = [f"Background jobs ({running} running, {len(jobs) - running} ended):"]
        for job in jobs:
            lines += job_lines(job)
        await self.notices.add_notice("\n".join(lines), fix=FIX)

    def _find(self, job_id: str) -> Job | None:
        return self.jobs.get(job_id)

    async def kill(self, job_id: str) -> None:
        job = self._find(job_id)
        if job is None or not job.background:
            await self._unknown(job_id)
        elif job.done:
            await self.notices.add_notice(f"Job {job.id} has already ended: {job.status()}.")
        else:
            self.host.run_worker(self._kill(job), group="jobs", exit_on_error=False)

    async def _kill(self, job: Job) -> None:
        await job.kill()
        await self.notices.add_notice(f"Stopped job {job.id}: {job.command}", "success")
        self.host.post_message(SessionChanged())

    async def show(self, job_id: str) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        job = self._find(job_id)
        if job is None:
            await self._unknown(job_id)
            return
        title = f"Job {job.id} · {job.status()} · {job.command}"
        viewer = TextViewerScreen(title, await asyncio.to_thread(whole_output, job))
        self.host.post_message(ShowScreen(viewer))

    async def _unknown(self, job_id: str) -> None:
        known = ", ".join(job.id for job in self.jobs.background()) or "none"
        said = f"There is no background job {job_id!r} (jobs: {known})."
        await self.notices.add_notice(said, "warning", "/jobs lists them.")


def kept_output(jobs: JobTable, output_id: str) -> str | None:
    """The whole output zizou kept under `output_id`; None when it keeps it no more."""
    job = jobs.get(output_id)
    return None if job is None else whole_output(job)


def whole_output(job: Job) -> str:
    """Every line kept of a job's output, as the model would read it, and what was not kept."""
    spool = job.spool
    lines = [line_text(line, 100_000)[0] for line in spool.read(1, spool.lines)]
    if not spool.whole:
        lines.append(f"[only {KEPT_NOTE} of its {spool.size:,} bytes were kept]")
    return "\n".join(lines)


__all__ = ["JobCommands", "job_lines", "kept_output", "whole_output"]
