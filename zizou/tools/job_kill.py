"""The job_kill tool: end a background job and every process it started.

It acts only on a job zizou started in this session (its own process group), never on any other
process, so it never asks.
"""

from __future__ import annotations

from pydantic import Field

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.job_output import unknown_job
from zizou.tools.jobs.report import job_text


class JobKillArgs(ToolArgs):
    id: str = Field(description='The job\'s id, as run_bash gave it (e.g. "c3").')


class JobKill(Tool[JobKillArgs]):
    """Stop a background job: its whole process group is ended (TERM, then KILL).

    Answers with how the job ended and its last lines. Only jobs that run_bash started can be
    stopped this way; a job that already ended is left as it is.
    """

    name = "job_kill"
    label_field = "id"
    access_kind = "job"
    summary = "Stop a background job and every process it started (offered once one runs)."
    Args = JobKillArgs
    offered_once = "a job runs in the background"

    def applies(self, ctx: ToolContext) -> bool:
        return bool(ctx.jobs.background())

    def access(self, args: JobKillArgs, ctx: ToolContext) -> Access:
        return Access(kind="job")

    async def execute(self, args: JobKillArgs, access: Access, ctx: ToolContext) -> ToolResult:
        job = ctx.jobs.get(args.id)
        if job is None:
            return ToolResult.error(unknown_job(args.id, ctx))
        already = job.done
        await job.kill()
        note = f"[job {job.id} had already ended]\n" if already else ""
        return ToolResult(ok=True, output=note + job_text(job, None))


TOOL = JobKill()
