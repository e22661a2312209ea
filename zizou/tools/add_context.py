"""The add_context tool: the first name of open_in_workspace, kept as an alias.

Sessions saved before the workspace had windows called it; a model resuming one may call it
again. It is not offered to the model any more (nor listed in the tool guide), but a call to it
opens a line window as open_in_workspace would.
"""

from __future__ import annotations

from pydantic import Field

from zizou.tools._windows import WindowArgs
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, file_access
from zizou.tools.open_in_workspace import OpenArgs, OpenInWorkspace


class AddContextArgs(ToolArgs):
    path: str = Field(description="File to pin, relative to the project root.")
    start_line: int | None = Field(
        default=None, ge=1, description="First line of the window to pin (1-based). Default: 1."
    )
    end_line: int | None = Field(
        default=None, ge=1, description="Last line of the window (inclusive). Default: end of file."
    )


class AddContext(Tool[AddContextArgs]):
    """Pin a file, or a window of its lines, into your workspace (the old name of
    open_in_workspace, kept so that sessions that called it still work)."""

    name = "add_context"
    access_kind = "read"
    summary = "The old name of open_in_workspace: open a file or a window of its lines."
    Args = AddContextArgs
    advertised = False
    alias_of = "open_in_workspace"

    def access(self, args: AddContextArgs, ctx: ToolContext) -> Access:
        return file_access("read", ctx, args.path)

    def work(self, args: AddContextArgs, access: Access, ctx: ToolContext) -> ToolResult:
        lines = {"start_line": args.start_line, "end_line": args.end_line}
        window = WindowArgs.model_validate({k: v for k, v in lines.items() if v is not None})
        opened = OpenArgs(
            path=args.path, window=window if window.start_line or window.end_line else None
        )
        return OpenInWorkspace().work(opened, access, ctx)


TOOL = AddContext()
