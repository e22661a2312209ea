"""The optional refusal of a write that breaks a file: with `[checks] refuse_breaking = true`,
a write that would turn a file that parses into one that does not is not made.

Without the setting such a write is made, and the syntax check reports the problem in the
tool's result (`zizou.checks`); with it, the model gets the problem before anything changed.
What breaks a file is the checks' to say (`ToolContext.breaking`, given by the session's assembly).
"""

from __future__ import annotations

from zizou.tools.base import ToolContext, ToolResult


def refused_write(
    ctx: ToolContext, rel: str, before: bytes | None, after: bytes
) -> ToolResult | None:
    """The error result when such writes are refused and `after` breaks `before`; else None."""
    if ctx.breaking is None or before is None:
        return None
    problem = ctx.breaking(rel, before, after)
    if problem is None:
        return None
    return ToolResult.error(
        f"{rel} was not changed: it parses now, and with this change it would not ({problem}). "
        "Correct the change and send it again (refuse_breaking is on in the [checks] settings)"
    )
