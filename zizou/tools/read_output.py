"""The read_output tool: read any lines of a command's output that the model was not shown.

run_bash keeps every command's whole output while it matters (a cut output, a job), and names
the call that reads the lines it left out. It only reads zizou's own outputs, so it never asks.
"""

from __future__ import annotations

from pydantic import Field, model_validator

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.job_output import unknown_job
from zizou.tools.jobs.report import range_text
from zizou.tools.jobs.view import READ_LINES


class ReadOutputArgs(ToolArgs):
    id: str = Field(description='The output\'s id, as run_bash named it (e.g. "c3").')
    start_line: int = Field(default=1, ge=1, description="The first line to read, from 1.")
    end_line: int | None = Field(
        default=None,
        ge=1,
        description=f"The last line to read (included); at most {READ_LINES:,} at a time.",
    )

    @model_validator(mode="after")
    def _ordered(self) -> ReadOutputArgs:
        if self.end_line is not None and self.end_line < self.start_line:
            raise ValueError(f"end_line {self.end_line} is before start_line {self.start_line}")
        return self


class ReadOutput(Tool[ReadOutputArgs]):
    """Read lines of a command's output that run_bash cut, or of a background job.

    A cut output says `N of M lines shown (head and tail)` and names this call with its id and
    the lines left out. Lines are numbered from 1; up to 2,000 come back at a time. To find
    something in a long output, grep it instead.
    """

    name = "read_output"
    label_field = "id"
    access_kind = "read"
    side_by_side = True
    summary = (
        "Read any lines of a cut command output or a background job's (offered once one is kept)."
    )
    Args = ReadOutputArgs
    offered_once = "a command output is kept"

    def applies(self, ctx: ToolContext) -> bool:
        return bool(ctx.jobs.ids())

    def access(self, args: ReadOutputArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    def label(self, args: ReadOutputArgs) -> str:
        return f"{args.id}:{args.start_line}-{args.end_line or ''}"

    async def execute(self, args: ReadOutputArgs, access: Access, ctx: ToolContext) -> ToolResult:
        job = ctx.jobs.get(args.id)
        if job is None:
            return ToolResult.error(unknown_job(args.id, ctx))
        return ToolResult(
            ok=True, output=range_text(job.spool, job.id, args.start_line, args.end_line)
        )


TOOL = ReadOutput()
