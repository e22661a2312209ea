"""The optional refusal of a write that breaks a file: with `[checks] refuse_breaking = true`,
a write that would turn a file that parses into one that does not is not made.

Without the setting such a write is made, and the syntax check reports the problem in the
tool's result (`zizou.checks`); with it, the model gets the problem before anything changed.
"""

from __future__ import annotations

from zizou.checks.syntax import breaks
from zizou.tools.base import ToolContext, ToolResult


def refused_write(
    ctx: ToolContext, rel: str, before: bytes | None, after: bytes
) -> ToolResult | None:
    """The error result when the setting is on and `after` breaks `before`; None otherwise."""
    if not ctx.refuse_breaking or before is None:
        return None
    problem = breaks(rel, before, after)
    if problem is None:
        return None
    where = f"line {problem.line}" + (f", column {problem.column}" if problem.column else "")
    return ToolResult.error(
        f"{rel} was not changed: it parses now, and with this change it would not ({where}: "
        f"{problem.message}). Correct the change and send it again (refuse_breaking is on in "
        "the [checks] settings)"
    )
