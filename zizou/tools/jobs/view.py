"""What the model reads of a command's output: whole when it fits, else its first and last lines
with a note that says how many lines were shown of how many, and how to read the rest.

Nothing is cut silently: a cut output says `N of M lines shown (head and tail)` and names the
`read_output` call that reads the lines left out; a line too long to show whole says how long it
is. Text is shown as a terminal would leave it (escape sequences removed, `\\r` overwrites kept
to the last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zizou.terminal_text import strip_terminal_controls
from zizou.tools.jobs.spool import Line, OutputSpool

HEAD_LINES = 1_000
TAIL_LINES = 1_000
HEAD_CHARS = 15_000
TAIL_CHARS = 15_000
LINE_CHARS = 4_000  # of one line, in a head-and-tail view
READ_LINES = 2_000  # what one read_output (or job_output) returns at most
READ_CHARS = 40_000
READ_LINE_CHARS = 20_000
KEPT_NOTE = "the first 64 MiB and the last 256 KiB"  # of an output longer than that

# How a result names the output a person can still read whole (the app's rows look for it).
OUTPUT_REF = re.compile(r'read_output\(id="(c\d+)"')


def output_ref(text: str) -> str | None:
    """The id of the kept output a tool result names, if it names one."""
    found = OUTPUT_REF.search(text)
    return found.group(1) if found else None


def line_text(line: Line, limit: int) -> tuple[str, bool]:
    """One line as shown, at most `limit` characters (and whether it was cut, said at its end)."""
    text = strip_terminal_controls(line.data.decode(errors="replace"))
    whole = line.length == len(line.data)
    if len(text) <= limit and whole:
        return text, False
    return f"{text[:limit]}… [line {line.number:,} is {line.length:,} bytes long]", True


@dataclass(frozen=True)
class Shown:
    """What the model was shown of an output."""

    text: str  # the lines, as shown
    cut: bool  # some lines (or part of one) were left out
    note: str | None  # the line that says so, and how to read the rest


def head_and_tail(spool: OutputSpool, output_id: str) -> Shown:
    """The whole output when it fits; else its first and last lines, and the lines between
    named for `read_output`."""
    total = spool.lines
    head: list[str] = []
    used, long_lines = 0, 0
    for line in spool.read(1, min(total, HEAD_LINES)):
        text, long = line_text(line, LINE_CHARS)
        if used + len(text) + 1 > HEAD_CHARS and head:
            break
        head.append(text)
        used, long_lines = used + len(text) + 1, long_lines + long
    tail: list[str] = []
    used = 0
    for line in reversed(spool.last(TAIL_LINES)):
        if line.number <= len(head):
            break
        text, long = line_text(line, LINE_CHARS)
        if used + len(text) + 1 > TAIL_CHARS and tail:
            break
        tail.append(text)
        used, long_lines = used + len(text) + 1, long_lines + long
    tail.reverse()
    gap = (len(head) + 1, total - len(tail))
    if gap[0] > gap[1]:
        note = _long_note(long_lines, output_id)
        return Shown("\n".join(head + tail), long_lines > 0, note)
    shown = len(head) + len(tail)
    marker = f"[... lines {gap[0]:,}-{gap[1]:,} not shown ...]"
    kept = "" if spool.whole else f" as far as it is kept ({KEPT_NOTE} of its {spool.size:,})"
    note = (
        f"[{shown:,} of {total:,} lines shown (head and tail); read the rest{kept} with "
        f'read_output(id="{output_id}", start_line={gap[0]}, end_line={gap[1]})]'
    )
    return Shown("\n".join([*head, marker, *tail]), True, note)


def _long_note(long_lines: int, output_id: str) -> str | None:
    if not long_lines:
        return None
    lines = "line was" if long_lines == 1 else f"{long_lines:,} lines were"
    return (
        f"[every line shown, but {lines} cut at {LINE_CHARS:,} characters; "
        f'read_output(id="{output_id}", start_line=N, end_line=N) reads a line whole]'
    )


def last_lines(spool: OutputSpool, count: int, chars: int) -> tuple[str, int]:
    """The last lines, at most `count` and about `chars` characters, and the first one's number
    (past the last line when there is none)."""
    lines = spool.last(count)
    shown: list[str] = []
    used = 0
    for line in reversed(lines):
        text, _ = line_text(line, LINE_CHARS)
        if used + len(text) + 1 > chars and shown:
            break
        shown.append(text)
        used += len(text) + 1
    shown.reverse()
    first = lines[-1].number - len(shown) + 1 if shown else spool.lines + 1
    return "\n".join(shown), first


def line_range(spool: OutputSpool, output_id: str, start: int, end: int) -> tuple[str, int]:
    """Lines `start` to `end` as read_output shows them (at most READ_LINES lines and about
    READ_CHARS characters), and the last line shown (start - 1 when none was)."""
    shown: list[str] = []
    used, last = 0, start - 1
    for line in spool.read(start, min(end, start + READ_LINES - 1)):
        text, _ = line_text(line, READ_LINE_CHARS)
        if used + len(text) + 1 > READ_CHARS and shown:
            break
        shown.append(text)
        used, last = used + len(text) + 1, line.number
    return "\n".join(shown), last


__all__ = [
    "OUTPUT_REF",
    "Shown",
    "head_and_tail",
    "last_lines",
    "line_range",
    "line_text",
    "output_ref",
    "strip_terminal_controls",
]
