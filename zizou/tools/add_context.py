"""The add_context tool, and `render_pin`, which the prompt builder calls to show each pin.

Pinning lets the model keep a file (or a window of it) in front of it at every step without
reading it again; the file is re-read when the prompt is rendered, so the view is never stale.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import Field

from zizou.confined import open_handle
from zizou.core.state import FileView
from zizou.errors import PathError
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, file_access
from zizou.tools.read_file import FileProblem, format_line, load_text

RENDER_MAX_CHARS = 20_000


class AddContextArgs(ToolArgs):
    path: str = Field(description="File to pin, relative to the project root.")
    start_line: int | None = Field(
        default=None, ge=1, description="First line of the window to pin (1-based). Default: 1."
    )
    end_line: int | None = Field(
        default=None, ge=1, description="Last line of the window (inclusive). Default: end of file."
    )


class AddContext(Tool[AddContextArgs]):
    """Pin a file, or a window of its lines, into your workspace.

    A pinned file is re-read and shown, with line numbers, in the WORKSPACE section of the
    system prompt at every step, so you always see its current content without calling
    read_file. Pin files you will consult often; pin a window of a long file (about 20,000
    characters are shown at most). Pinning the same path again replaces its window.
    """

    name = "add_context"
    summary = "Pin a file or a window of its lines, shown current in WORKSPACE at every step."
    Args = AddContextArgs

    def access(self, args: AddContextArgs, ctx: ToolContext) -> Access:
        return file_access("read", ctx, args.path)

    def work(self, args: AddContextArgs, access: Access, ctx: ToolContext) -> ToolResult:
        rel = access.handle().rel
        try:
            _, lines = load_text(access.handle())
        except (PathError, FileProblem) as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not read {args.path}: {err.strerror or err}")
        problem = _window_problem(len(lines), args.start_line, args.end_line)
        if problem is not None:
            return ToolResult.error(f"cannot pin {rel}: {problem}")
        ctx.state.pin(FileView(rel, args.start_line, args.end_line))
        first, last = args.start_line or 1, args.end_line or len(lines)
        what = f"{rel} (lines {first}-{last})" if lines else f"{rel} (empty for now)"
        note = ""
        if sum(len(line) + 8 for line in lines[first - 1 : last]) > RENDER_MAX_CHARS:
            note = " It is long, so only its first ~20,000 characters will show; pin a window."
        return ToolResult(
            ok=True,
            output=f"Pinned {what}. Its current content will appear in the WORKSPACE section of "
            f"the system prompt at every step.{note}",
        )


def _window_problem(total: int, start: int | None, end: int | None) -> str | None:
    if start is not None and start > total:
        return f"start_line {start} is past the end of the file, which has {total} lines"
    if end is not None and end > total:
        return f"end_line {end} is past the end of the file, which has {total} lines"
    if start is not None and end is not None and end < start:
        return f"end_line {end} is before start_line {start}"
    return None


def render_pin(
    root: Path,
    pin: FileView,
    max_chars: int = RENDER_MAX_CHARS,
    seen: Callable[[Path, bytes], None] | None = None,
) -> str:
    """The pinned file's numbered content as it is now, or a one-line note saying why not.

    The path is resolved strictly again and read by fd: a pin whose file became a symlink out
    of the project, or whose directory was swapped for one, shows an error line, not the content.
    """
    try:
        with open_handle(root, pin.path) as file:
            if file.stat() is None:
                return f"[{pin.path} no longer exists]"
            data, lines = load_text(file)
            if seen is not None:  # what the model is shown of it, for the read ledger
                seen(file.path, data)
    except PathError as err:
        return f"[{pin.path}: {err}]"
    except FileProblem as err:
        return f"[{err}]"
    except OSError as err:
        return f"[{pin.path}: could not be read: {err.strerror or err}]"
    if not lines:
        return f"[{pin.path} is empty]"
    first = pin.start_line or 1
    last = min(pin.end_line or len(lines), len(lines))
    if first > last:
        total = len(lines)
        return f"[{pin.path}: pinned from line {first}, but the file has {total} lines now]"
    shown: list[str] = []
    size = 0
    for number in range(first, last + 1):
        text = format_line(number, lines[number - 1])
        size += len(text) + 1
        if shown and size > max_chars:
            shown.append(f"[... cut at {max_chars:,} characters; lines {number}-{last} not shown]")
            break
        shown.append(text)
    return "\n".join(shown)


TOOL = AddContext()
