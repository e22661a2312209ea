"""What run_bash does with a command's copy-on-write layer once the command ends: its result
says what applying the layer found (conflicts, failures), and a command moved to the
background has its layer applied when it ends. Kept apart from the job table, which the tools'
base imports."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from zizou.sandbox.layer_apply import Applied
from zizou.tools.base import ToolResult
from zizou.tools.jobs import JobTable
from zizou.tools.jobs.job import Job
from zizou.tools.jobs.layered import applied_notes

log = logging.getLogger(__name__)
_later: set[asyncio.Task[None]] = set()  # applies waiting for a background command to end


def with_applied(result: ToolResult, applied: Applied | None) -> ToolResult:
    """`result`, carrying `applied`, its output followed by what the model must know of it."""
    if applied is None:
        return result
    notes = applied_notes(applied)
    output = "\n".join([result.output.rstrip("\n"), *notes]) if notes else result.output
    return dataclasses.replace(result, output=output, applied=applied)


def apply_when_done(jobs: JobTable, job: Job) -> None:
    """Move the changes of a command moved to the background into the project once it ends
    (or once the table ends it, on exit)."""

    async def wait_then_apply() -> None:
        await job.wait()
        applied = await asyncio.to_thread(jobs.applied, job)
        for line in applied_notes(applied) if applied is not None else []:
            log.warning("background command %s: %s", job.id, line)

    task = asyncio.ensure_future(wait_then_apply())
    _later.add(task)
    task.add_done_callback(_later.discard)


__all__ = ["apply_when_done", "with_applied"]
