"""The job_output tool: how a command in the background stands, and its output since a line.

It only reads zizou's own jobs, so it never asks. `wait_s` lets the model wait for a job to end
in one call rather than poll in a loop; the wait ends as soon as the job does.
"""

from __future__ import annotations

from pydantic import Field

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.jobs.listening import with_reach
from zizou.tools.jobs.report import job_text


class JobOutputArgs(ToolArgs):
    id: str = Field(description='The job\'s id, as run_bash gave it (e.g. "c3").')
    since_line: int | None = Field(
        default=None,
        ge=0,
        description="Return the lines after this one; without it, the last lines.",
    )
    wait_s: int = Field(
        default=0,
        ge=0,
        le=600,
        description="Wait up to this many seconds (0-600) for the job to end first.",
    )


class JobOutput(Tool[JobOutputArgs]):
    """Read a background job's state (running, exit code, killed) and its output.

    Pass `since_line` (the last line number you saw) for only the new lines, else you get the
    last ones; pass `wait_s` to wait for the job to end (a build, a test run) rather than call
    again and again. read_output reads any range of its lines.
    """

    name = "job_output"
    label_field = "id"
    access_kind = "read"
    side_by_side = True
    repeatable = True  # the same question gets a new answer while the job runs
    summary = (
        "Read a background job's state and new output, or wait for it to end "
        "(offered once one runs)."
    )
    Args = JobOutputArgs
    offered_once = "a job runs in the background"

    def applies(self, ctx: ToolContext) -> bool:
        return bool(ctx.jobs.background())

    def access(self, args: JobOutputArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    async def execute(self, args: JobOutputArgs, access: Access, ctx: ToolContext) -> ToolResult:
        job = ctx.jobs.get(args.id)
        if job is None:
            return ToolResult.error(unknown_job(args.id, ctx))
        if args.wait_s:
            await job.wait(args.wait_s)
        text = job_text(job, args.since_line)
        return ToolResult(ok=True, output=text if job.done else with_reach(text, job))


def unknown_job(job_id: str, ctx: ToolContext) -> str:
    """Why `job_id` names nothing, with the ids that do name something."""
    known = ", ".join(ctx.jobs.ids()) or "none"
    return (
        f"there is no job or kept output {job_id!r} (ids kept: {known}); run_bash gives the id "
        "of a background job, and of an output it cut (an output shown whole is not kept)"
    )


TOOL = JobOutput()
