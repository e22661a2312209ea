"""How a finished tool call is shown, read from what the conversation recorded for it.

The live view and a resumed session both call `outcome_of` on the same tool message, so a call
reads the same in both: done, failed, denied, refused, interrupted or not run. Commands also get
a preview: the last few lines of what they printed, and how many lines are hidden above them;
MCP tools, whose results read from the top, the first few lines and how many follow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from zizou.contracts.messages import Message, ToolMessage
from zizou.ui.text import clean

PREVIEW_LINES = 5  # a command's output shown under its row; more is one key or click away
_ERROR = "Error: "
_STATUS = re.compile(r"^(exit code -?\d+.*|\[timed out .*\]|timed out .*|job c\d+: .*)$")
_STOPPED = "[interrupted after "  # a command stopped as it ran: what it printed follows
_JOB = re.compile(r"^job (c\d+): (running in the background|still running after)")
_CUT = re.compile(r"^\[[\d,]+ of ([\d,]+) lines shown \(head and tail\);")  # the model saw part
_NOTES = (  # the prefix of a recorded result, and how the row names that outcome
    ("not run: the turn was cancelled", "interrupted"),
    ("not run: the turn was interrupted", "interrupted"),
    ("Error: [interrupted after ", "interrupted"),  # a command stopped as it ran: its output
    ("Error: interrupted after ", "interrupted"),  # another call stopped as it ran
    ("not run:", "not run"),
    ("Error: the user did not approve", "denied"),
    ("Error: refused:", "refused"),
)


@dataclass(frozen=True)
class Outcome:
    ok: bool
    output: str  # what the tool said, without the "Error: " the model reads
    note: str | None = None  # "denied", "interrupted", ...: said in place of a plain ✗

    @property
    def ran(self) -> bool:
        """False when the call has no output worth previewing: it never ran, or was stopped
        before it said anything (a command stopped as it ran says what it printed)."""
        if self.output.startswith(_STOPPED):
            return self.output.split("\n")[1:] not in ([], ["(no output)"])
        return self.note not in ("interrupted", "not run", "denied", "refused")


def outcome_of(content: str, ok: bool | None = None) -> Outcome:
    """The outcome of a call from its tool message (what `core.calls.model_text` wrote):
    `ok` as its record says (when there is one), and why it did not run, when it did not."""
    note = next((name for prefix, name in _NOTES if content.startswith(prefix)), None)
    failed = note is not None or (not ok if ok is not None else content.startswith(_ERROR))
    return Outcome(not failed, content.removeprefix(_ERROR), note)


@dataclass(frozen=True)
class Preview:
    status: str | None  # "exit code 2" or a timeout, when it is not a plain success
    lines: list[str]  # the last lines of the output (the first, for a result read from the top)
    hidden: int  # how many lines come before them
    later: int = 0  # how many lines come after them


def command_preview(output: str, limit: int = PREVIEW_LINES) -> Preview:
    """The tail of a command's output (`exit code N` then what it printed); the lines hidden
    above it are all those the command printed, when the model saw only part of them."""
    lines = clean(output).rstrip("\n").split("\n")
    status = None
    if lines and lines[0].startswith(_STOPPED):  # the row says "interrupted" already
        lines.pop(0)
    elif lines and _STATUS.match(lines[0]):
        first = lines.pop(0)
        status = None if first == "exit code 0" else first
    total = None
    if lines and (cut := _CUT.match(lines[0])):
        lines.pop(0)
        total = int(cut.group(1).replace(",", ""))
    lines = lines or ["(no output)"]
    shown = lines[-limit:] if len(lines) > limit else lines
    return Preview(status, shown, (total or len(lines)) - len(shown))


def result_preview(output: str, limit: int = PREVIEW_LINES) -> Preview:
    """The head of a result read from the top (an MCP tool's), and how many lines follow it."""
    lines = clean(output).rstrip("\n").split("\n")
    lines = lines if lines != [""] else ["(no output)"]
    return Preview(None, lines[:limit], 0, max(0, len(lines) - limit))


def background_job(preview: Preview | None) -> str | None:
    """The id of the job a command's row stands for, when the command went on in the background."""
    found = _JOB.match(preview.status or "") if preview is not None else None
    return found.group(1) if found else None


def recorded_result(records: list[Message], call_id: str) -> Outcome | None:
    """The outcome recorded for `call_id` in the conversation, newest first; None if none."""
    for record in reversed(records):
        if isinstance(record, ToolMessage) and record.tool_call_id == call_id:
            return outcome_of(record.content, record.ok)
    return None


__all__ = [
    "PREVIEW_LINES",
    "Outcome",
    "Preview",
    "background_job",
    "command_preview",
    "outcome_of",
    "recorded_result",
]
