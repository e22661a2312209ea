"""The replace_window tool: rewrite exactly the lines of a window, and nothing else.

The window is an open one (by id) or given as open_in_workspace takes it; its whole lines are
replaced by `content`. Every byte outside them stays as it was: the file's newline style (CRLF
stays CRLF) and whether it ends with a newline are kept. Allowed only on content the model has
seen: the file was read, or the window was shown this step, and it has not changed since.
"""

from __future__ import annotations

from pydantic import Field

from zizou.confined import PathHandle
from zizou.contracts.state import content_hash
from zizou.contracts.windows import Found, WindowError
from zizou.errors import PathError
from zizou.tools._atomic import newline_of, split_lines, to_lf, unified_diff
from zizou.tools._encoding import EncodingProblem
from zizou.tools._parse_guard import refused_write
from zizou.tools._windows import WindowArgs, locate
from zizou.tools.base import (
    Access,
    Tool,
    ToolArgs,
    ToolContext,
    ToolResult,
    file_access,
    kept,
)
from zizou.tools.read_file import seen_text


class ReplaceWindowArgs(ToolArgs):
    path: str = Field(description="File to change, relative to the project root.")
    window_id: str | None = Field(
        default=None, description="The id of an open window (w3) whose lines to replace."
    )
    window: WindowArgs | None = Field(
        default=None, description="Or the window's lines, as open_in_workspace takes them."
    )
    content: str = Field(
        description="The new text for exactly those lines (without line-number prefixes); "
        "an empty string removes the lines."
    )


class ReplaceWindow(Tool[ReplaceWindowArgs]):
    """Replace exactly the lines of a window with new content.

    Name an open window by window_id (its lines as the WORKSPACE section shows them now), or give
    the window (a regex, or a start and an end). Only those whole lines change; the rest of the
    file is kept byte for byte, with its line endings. The file must be unchanged since you last
    saw it (read_file, or the window shown this step). Returns a diff.
    """

    name = "replace_window"
    access_kind = "write"
    summary = (
        "Replace exactly the lines of a workspace window, by id or given "
        "(offered once one is open)."
    )
    Args = ReplaceWindowArgs
    offered_once = "a window is open"

    def applies(self, ctx: ToolContext) -> bool:
        return bool(ctx.state.windows)

    def label(self, args: ReplaceWindowArgs) -> str:
        return f"{args.path} · {args.window_id}" if args.window_id else args.path

    def access(self, args: ReplaceWindowArgs, ctx: ToolContext) -> Access:
        return file_access("write", ctx, args.path)

    def work(self, args: ReplaceWindowArgs, access: Access, ctx: ToolContext) -> ToolResult:
        if (args.window_id is None) == (args.window is None):
            return ToolResult.error("give exactly one of window_id (an open window) or window")
        try:
            return _replace(access.handle(), args, ctx)
        except (PathError, WindowError) as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not change {args.path}: {err.strerror or err}")


def _replace(file: PathHandle, args: ReplaceWindowArgs, ctx: ToolContext) -> ToolResult:
    rel, path = file.rel, file.path
    seen = seen_text(file, ctx, "replace_window")
    if isinstance(seen, ToolResult):
        return seen
    data, text = seen
    decoded = text.text
    lines = split_lines(to_lf(text.shown))
    found = _lines_of(args, rel, lines, content_hash(data), ctx)
    if isinstance(found, str):
        return ToolResult.error(found)
    start, end = found
    newline = newline_of(decoded)
    raw = decoded.split("\n")  # each piece keeps its "\r" when the file is CRLF
    pieces = [piece + "\n" for piece in raw[:-1]] + ([raw[-1]] if raw[-1] else [])
    ending = _ending(pieces[end - 1])
    new_lines = split_lines(to_lf(args.content))
    block = "".join(line + newline for line in new_lines)
    if block and not ending:  # the window held the last line, which had no newline: keep so
        block = block[: -len(newline)]
    head = "".join(pieces[: start - 1])
    if not block and not ending and head:  # the last lines removed: still no final newline
        head = head[: -len(_ending(pieces[start - 2]))]
    out_text = head + block + "".join(pieces[end:])
    try:
        out = text.encode(out_text)
    except EncodingProblem as err:
        return ToolResult.error(f"cannot change {rel}: {err}")
    if out == data:
        return ToolResult.error("the content is what those lines already hold; nothing changed")
    refused = refused_write(ctx, rel, data, out)
    if refused is not None:
        return refused
    file.atomic_write(out)
    after = split_lines(to_lf(text.show(out_text)))
    ctx.state.file_written(path, rel, lines, after, out)
    which = f" ({args.window_id})" if args.window_id else ""
    summary = (
        f"Replaced lines {start}-{end} of {rel}{which} with {len(new_lines)} line"
        f"{'s' * (len(new_lines) != 1)}; the new text is at lines {start}-"
        f"{start + len(new_lines) - 1}."
        if new_lines
        else f"Removed lines {start}-{end} of {rel}{which}."
    )
    diff = unified_diff(rel, to_lf(text.shown), to_lf(text.show(out_text)))
    return ToolResult(ok=True, output=summary, diff=diff, replaced=kept(text.shown))


def _lines_of(
    args: ReplaceWindowArgs, rel: str, lines: list[str], digest: str, ctx: ToolContext
) -> tuple[int, int] | str:
    """The window's first and last lines now, or why they cannot be replaced."""
    if args.window is not None:
        found: Found = locate(args.window.spec(), lines, rel)
        return found.start, found.end
    window = ctx.state.window(args.window_id or "")
    if window is None or window.path != rel:
        open_now = ", ".join(f"{w.id} {w.path}" for w in ctx.state.windows) or "none"
        return f"no open window {args.window_id} on {rel}; the open windows are: {open_now}"
    if window.span is None or window.status in ("lost", "missing"):
        return f"{window.id} is not shown now ({window.note or 'not found'}); open it again"
    start, end = window.span
    if end < start or end > len(lines):
        return f"{window.id} has no lines to replace in {rel} now; open it again"
    if window.file_hash == digest:  # placed in exactly this content
        return start, end
    # The file changed since the window was placed (anchored and whole windows are found again
    # only at the next render): find it now, never replace the lines it used to have.
    if window.spec.is_whole:
        return (1, len(lines)) if lines else f"{rel} is empty: there are no lines to replace"
    if not window.spec.by_lines:
        found = locate(window.spec, lines, rel, window.hint, window.first_text)
        return found.start, found.end
    return (
        f"the lines of {window.id} changed outside zizou since it was shown; look at it in the "
        "WORKSPACE at the next step, or give the window's lines"
    )


def _ending(piece: str) -> str:
    if piece.endswith("\r\n"):
        return "\r\n"
    return "\n" if piece.endswith("\n") else ""


TOOL = ReplaceWindow()
