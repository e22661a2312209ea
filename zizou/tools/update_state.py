"""The update_state tool: the model keeps the task's state, typed and visible, by patches.

The state's schema and value are in the TASK STATE section of the system prompt at every step.
A patch is all or nothing: applied to a copy, validated against the schema, then committed; a
refused one says which operation or which field is wrong, and the state stays as it was.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult


class UpdateStateArgs(ToolArgs):
    patch: list[dict[str, Any]] | None = Field(
        default=None,
        description='At most 100 operations, e.g. [{"op": "replace", "path": "/plan/0/status", '
        '"value": "done"}].',
    )
    merge: dict[str, Any] | None = Field(
        default=None,
        description='Merged into the state, e.g. {"goal": "..."}; null removes a field, an array '
        "is replaced whole.",
    )
    reason: str | None = Field(default=None, description="Why, in a few words (for the log).")


class UpdateState(Tool[UpdateStateArgs]):
    """Update the TASK STATE with exactly one of `patch` (RFC 6902 operations on JSON
    pointers such as /plan/2/status) or `merge` (an RFC 7396 object).

    All or nothing: if an operation fails or the result does not fit the schema, nothing changes
    and the error says why.
    """

    name = "update_state"
    access_kind = "read"
    summary = "Update the task state (goal, plan, notes) with a JSON Patch or a merge object."
    Args = UpdateStateArgs
    label_field = "reason"

    def access(self, args: UpdateStateArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")  # the session's own state: no file, no command

    def work(self, args: UpdateStateArgs, access: Access, ctx: ToolContext) -> ToolResult:
        if (args.patch is None) == (args.merge is None):
            return ToolResult.error("give exactly one of patch (a list of operations) or merge")
        result = ctx.state.update_task(args.patch, args.merge, "model")
        if not result.ok:
            return ToolResult.error(result.message)
        return ToolResult(ok=True, output=result.message)


TOOL = UpdateState()
