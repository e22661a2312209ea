"""The words the model reads about a command: how it ended or where it runs, its output as far
as it fits, and the call that reads on.

A result's first line is its status (`exit code N`, `[timed out ...]`, `job c3: ...`), as the
app's rows expect; a note in square brackets says what was left out and how to read it.
"""

from __future__ import annotations

from zizou.tools.jobs.job import Job
from zizou.tools.jobs.spool import OutputSpool
from zizou.tools.jobs.view import (
    KEPT_NOTE,
    READ_CHARS,
    head_and_tail,
    last_lines,
    line_range,
)

JOB_TAIL_LINES = 200  # what job_output shows of a job's output, without `since_line`
STRAYS = "[background processes still holding the output were killed]"


def finished_text(job: Job) -> tuple[str, bool]:
    """A foreground command that ended: its status line and output; and whether its output
    was cut (so it is worth keeping for read_output)."""
    if job.state == "timed_out":
        status = f"[timed out after {job.timeout_s:g} s; process group killed]"
    else:
        status = f"exit code {job.exit_code}{signal_note(job.exit_code)}"
    return _ended_text(job, status)


def interrupted_text(job: Job) -> tuple[str, bool]:
    """A foreground command the user stopped (the turn was cancelled while it ran, and its
    process group killed): how long it ran, and what it printed until then; whether that
    output was cut. It ran: what it did before the stop is done."""
    status = (
        f"[interrupted after {job.elapsed_s:.1f} s: the turn was stopped while it ran, so "
        "its process group was killed; what it did until then is done]"
    )
    return _ended_text(job, status)


def _ended_text(job: Job, status: str) -> tuple[str, bool]:
    shown = head_and_tail(job.spool, job.id)
    lines = [status]
    if shown.note is not None:
        lines.append(shown.note)
    lines.append(shown.text.rstrip("\n") or "(no output)")
    if job.strays_killed:
        lines.append(STRAYS)
    if job.spool.problem is not None:
        lines.append(f"[{job.spool.problem}]")
    return "\n".join(lines), shown.cut


def background_text(job: Job, moved_after_s: float | None = None) -> str:
    """A job that runs on in the background: started so (`moved_after_s` None), or a foreground
    command moved there after that many seconds; its output so far, and how to follow it."""
    if moved_after_s is None:
        status = f"job {job.id}: running in the background"
    else:
        status = (
            f"job {job.id}: still running after {moved_after_s:g} s, so it was moved to the "
            "background and the turn goes on"
        )
    until = (
        f"it is killed at its timeout ({job.timeout_s:g} s), by job_kill, or when zizou exits"
        if job.timeout_s
        else "it runs until it ends, job_kill, or zizou exits"
    )
    shown = head_and_tail(job.spool, job.id)
    lines = [status, f"[{until}]", f"output so far ({_count(job.spool.lines)}):"]
    if shown.note is not None:
        lines.append(shown.note)
    lines.append(shown.text.rstrip("\n") or "(none yet)")
    lines.append(
        f'[follow it with job_output(id="{job.id}", since_line={job.spool.lines}, wait_s=30); '
        f'stop it with job_kill(id="{job.id}")]'
    )
    return "\n".join(lines)


def job_text(job: Job, since_line: int | None) -> str:
    """What job_output says: the job's state, then its new lines (after `since_line`) or its
    last ones, and the call that reads on."""
    spool = job.spool
    total = spool.lines
    lines = [f"job {job.id}: {job.status()} · {job.command}"]
    if since_line is None:
        text, start = last_lines(spool, JOB_TAIL_LINES, READ_CHARS)
        last = total
    else:
        start = since_line + 1
        text, last = line_range(spool, job.id, start, total)
    if start > total:
        lines.append(f"[no new lines: the output has {_count(total)}]")
    else:
        lines += [f"[{_span(start, last)} of {total:,}]", text]
    if since_line is None and 1 < start <= total:
        lines.append(
            f'[lines 1-{start - 1:,} not shown: read_output(id="{job.id}", start_line=1, '
            f"end_line={start - 1}) reads them]"
        )
    if last < total:
        lines.append(f'[more: job_output(id="{job.id}", since_line={last}) goes on]')
    elif not job.done:
        lines.append(f'[next: job_output(id="{job.id}", since_line={last}) gives the new lines]')
    return "\n".join(lines)


def range_text(spool: OutputSpool, output_id: str, start: int, end: int | None) -> str:
    """What read_output says: the lines asked for, as far as one read goes, and how to read on."""
    total = spool.lines
    end = total if end is None else min(end, total)
    if start > total:
        return f"[output {output_id} has {_count(total)}; line {start:,} is past its end]"
    text, last = line_range(spool, output_id, start, end)
    if last < start:
        return (
            f"[lines {start:,}-{end:,} of output {output_id} were not kept: zizou keeps "
            f"{KEPT_NOTE} of a command's output]"
        )
    lines = [f"[output {output_id}: {_span(start, last)} of {total:,}]", text]
    if last < end:
        lines.append(
            f'[more: read_output(id="{output_id}", start_line={last + 1}, end_line={end}) goes on]'
        )
    return "\n".join(lines)


def _span(start: int, last: int) -> str:
    return f"line {start:,}" if start == last else f"lines {start:,}-{last:,}"


def _count(lines: int) -> str:
    return "1 line" if lines == 1 else f"{lines:,} lines"


def signal_note(code: int | None) -> str:
    import signal

    if code is None or code >= 0:
        return ""
    try:
        return f" (killed by {signal.Signals(-code).name})"
    except ValueError:
        return ""


__all__ = [
    "background_text",
    "finished_text",
    "interrupted_text",
    "job_text",
    "range_text",
    "signal_note",
]
