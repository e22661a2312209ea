"""The close_in_workspace tool: take a window, or every window of a file, out of the workspace."""

from __future__ import annotations

import posixpath

from pydantic import Field

from zizou.confined import relative, resolve
from zizou.contracts.windows import WindowError
from zizou.tools._windows import WindowArgs
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult


class CloseArgs(ToolArgs):
    path: str = Field(description="File whose window(s) to close, relative to the project root.")
    window_id: str | None = Field(
        default=None, description="The id of the one window to close (w3); omit to close all."
    )
    window: WindowArgs | None = Field(
        default=None, description="Or the window as it was opened, to close that one."
    )


class CloseInWorkspace(Tool[CloseArgs]):
    """Close windows in your workspace: the one named by window_id (or by its window), or every
    window of the file. Closed windows are no longer shown in the WORKSPACE section; the file is
    not changed."""

    name = "close_in_workspace"
    access_kind = "read"
    summary = (
        "Close a workspace window (by id), or every window of a file (offered once one is open)."
    )
    Args = CloseArgs
    offered_once = "a window is open"

    def applies(self, ctx: ToolContext) -> bool:
        return bool(ctx.state.windows)

    def access(self, args: CloseArgs, ctx: ToolContext) -> Access:
        # Closing reads nothing: the path is resolved (inside the project) but not declared as
        # read, so a window on a file the model may not read (one that became `.env`) closes.
        return Access(kind="read", places=(resolve(ctx.root, args.path),))

    def work(self, args: CloseArgs, access: Access, ctx: ToolContext) -> ToolResult:
        rel = relative(ctx.root, access.places[0])
        named = posixpath.normpath(args.path)
        if rel not in ctx.state.paths() and named in ctx.state.paths():
            rel = named  # the window's own name for a file since replaced by a link
        if args.window_id is not None and args.window is not None:
            return ToolResult.error("give window_id or window, not both")
        window_id = args.window_id
        if args.window is not None:
            try:
                spec = args.window.spec()
            except WindowError as err:
                return ToolResult.error(str(err))
            same = [w for w in ctx.state.windows_of(rel) if w.spec == spec]
            if not same:
                return ToolResult.error(_none_open(ctx, rel, f"no window {spec.describe()}"))
            window_id = same[0].id
        closed = ctx.state.close_windows(rel, window_id)
        if not closed:
            what = f"no window {window_id}" if window_id else "no window"
            return ToolResult.error(_none_open(ctx, rel, what))
        names = ", ".join(f"{w.id} ({w.spec.describe()})" for w in closed)
        return ToolResult(ok=True, output=f"Closed {names} of {rel}.")


def _none_open(ctx: ToolContext, rel: str, what: str) -> str:
    open_now = ", ".join(f"{w.id} {w.path} ({w.spec})" for w in ctx.state.windows) or "none"
    return f"{what} is open on {rel}; the open windows are: {open_now}"


TOOL = CloseInWorkspace()
