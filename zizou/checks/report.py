"""What the model (and the person) read about the problems a change brought.

Worded so the change is not taken for a failure: the tool's result says first what it did, and
this follows it, `New syntax problems after this change (it was applied):`, then each problem
with its line and a two-line excerpt (the line, and a caret under the column), at most
MAX_SHOWN of them and a count of the rest. The front ends find a report in a result by
APPLIED_NOTE, which every report's first line holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

APPLIED_NOTE = "after this change (it was applied)"
MAX_SHOWN = 5
EXCERPT_CHARS = 120


@dataclass(frozen=True)
class Finding:
    """One problem in one file: from the syntax check, or a checker's diagnostic."""

    line: int  # from 1
    column: int  # from 1; 0 when the checker gave none
    message: str


def report(title: str, findings: Sequence[Finding], text: str, note: str = APPLIED_NOTE) -> str:
    """`title` (e.g. "New syntax problems") and `note`, then each finding in `text` (the
    file's new content) with its excerpt."""
    lines = text.split("\n")
    out = [f"{title} {note}:"]
    for finding in findings[:MAX_SHOWN]:
        where = f"line {finding.line}" + (f", column {finding.column}" if finding.column else "")
        out.append(f"- {where}: {finding.message}")
        out.extend(_excerpt(lines, finding))
    if len(findings) > MAX_SHOWN:
        more = len(findings) - MAX_SHOWN
        out.append(f"... and {more} more problem{'s' * (more > 1)}.")
    return "\n".join(out)


def split_report(output: str) -> tuple[str, str]:
    """A tool result's own text, and the reports that follow it ("" when there are none)."""
    lines = output.split("\n")
    for number, line in enumerate(lines):
        if APPLIED_NOTE in line:
            return "\n".join(lines[:number]).rstrip("\n"), "\n".join(lines[number:])
    return output, ""


def _excerpt(lines: list[str], finding: Finding) -> list[str]:
    if not 1 <= finding.line <= len(lines):
        return []
    line = lines[finding.line - 1].rstrip("\r")
    source = line.expandtabs(4)
    number = f"{finding.line:>6} | "
    if len(source) > EXCERPT_CHARS:
        source = source[:EXCERPT_CHARS] + "…"
    shown = [number + source]
    caret = len(line[: finding.column - 1].expandtabs(4)) if finding.column else -1
    if 0 <= caret <= EXCERPT_CHARS:
        shown.append(" " * (len(number) - 2) + "| " + " " * caret + "^")
    return shown


__all__ = ["APPLIED_NOTE", "MAX_SHOWN", "Finding", "report", "split_report"]
