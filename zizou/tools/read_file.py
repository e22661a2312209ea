"""The read_file tool: numbered text the model can quote back exactly into edit_file.

It also holds the text helpers other tools share (binary detection, line numbering), so that
every tool that shows file lines numbers them the same way.
"""

from __future__ import annotations

import stat

from pydantic import Field

from zizou.confined import PathHandle
from zizou.contracts.state import FileView
from zizou.contracts.windows import WindowError
from zizou.errors import PathError
from zizou.tools._atomic import split_lines, to_lf
from zizou.tools._encoding import FileText, decode
from zizou.tools._windows import WindowArgs, locate
from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult, file_access

MAX_LINES = 2_000
MAX_OUTPUT_BYTES = 100_000
MAX_LINE_CHARS = 2_000
MAX_FILE_BYTES = 20_000_000


class FileProblem(Exception):
    """A file cannot be shown as text; the message says why and what to do instead."""


def format_line(number: int, line: str) -> str:
    """One line as `cat -n` shows it; very long lines are cut with a marker."""
    line = line.removesuffix("\r")
    if len(line) > MAX_LINE_CHARS:
        cut = len(line) - MAX_LINE_CHARS
        line = f"{line[:MAX_LINE_CHARS]} [... line truncated, {cut:,} more characters]"
    return f"{number:>6}\t{line}"


def load_text(file: PathHandle) -> tuple[bytes, list[str]]:
    """The bytes and lines (as shown: see `_encoding`) of the file `file` holds, read by fd
    without following symlinks; FileProblem names what to do instead, PathError says the path
    is unsafe."""
    data, text = load_file(file)
    return data, split_lines(to_lf(text.shown))


def load_file(file: PathHandle) -> tuple[bytes, FileText]:
    """The bytes and decoded text of the file `file` holds (see `load_text`)."""
    rel = file.rel
    info = file.stat()
    if info is None:
        raise FileProblem(f"{rel} does not exist; use glob to find the file you mean")
    if stat.S_ISDIR(info.st_mode):
        raise FileProblem(f"{rel} is a directory; use list_dir to see what it holds")
    if not stat.S_ISREG(info.st_mode):
        raise FileProblem(f"{rel} is not a regular file, so it cannot be read")
    if info.st_size > MAX_FILE_BYTES:
        size = info.st_size
        raise FileProblem(f"{rel} is too large to read ({size:,} bytes); use grep to search it")
    data = file.read_bytes(MAX_FILE_BYTES)
    text = decode(data)
    if text is None:
        raise FileProblem(
            f"{rel} looks binary ({len(data):,} bytes: a NUL byte, or bytes no text encoding "
            "zizou reads gives back); only text files can be read"
        )
    return data, text


def seen_text(file: PathHandle, ctx: ToolContext, tool: str) -> tuple[bytes, FileText] | ToolResult:
    """The bytes and text of a file a tool is about to change, or the error to return: it must
    exist, be a regular text file, and be as the model last saw it (read, or shown whole).
    The text keeps the file's stray bytes (see `_encoding`); its `encode` writes it back."""
    rel = file.rel
    info = file.stat()
    if info is None:
        return ToolResult.error(f"{rel} does not exist; to create it, use write_file")
    if not stat.S_ISREG(info.st_mode):
        return ToolResult.error(f"{rel} is not a regular file; {tool} only changes files")
    if info.st_size > MAX_FILE_BYTES:
        return ToolResult.error(f"{rel} is too large to change here ({info.st_size:,} bytes)")
    data = file.read_bytes(MAX_FILE_BYTES)
    reason = ctx.state.check_unchanged(file.path, data)
    if reason is not None:
        return ToolResult.error(f"cannot change {rel}: {reason}")
    decoded = decode(data)
    if decoded is None:
        return ToolResult.error(f"{rel} looks binary; {tool} only changes text files")
    return data, decoded


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File to read.")
    start_line: int | None = Field(default=None, ge=1, description="First line to show.")
    end_line: int | None = Field(default=None, ge=1, description="Last line to show.")
    window: WindowArgs | None = Field(
        default=None,
        description="Instead of start_line/end_line: the part to read.",
    )


class ReadFile(Tool[ReadFileArgs]):
    """Read a text file, each line prefixed with its number and a tab.

    At most 2,000 lines (about 100 KB) per call, with a note saying how to read on; pass
    start_line/end_line, or a window, to read part of a file. The line-number prefix is not part
    of the file: leave it out when you quote lines in edit_file.
    """

    name = "read_file"
    access_kind = "read"
    side_by_side = True
    summary = "Read a text file with numbered lines; read a file before editing it."
    Args = ReadFileArgs

    def access(self, args: ReadFileArgs, ctx: ToolContext) -> Access:
        return file_access("read", ctx, args.path)

    def work(self, args: ReadFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        file = access.handle()
        rel = file.rel
        try:
            data, text = load_file(file)
        except (PathError, FileProblem) as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not read {args.path}: {err.strerror or err}")
        return show_lines(args, file, data, text.shown, ctx, encoding_note(rel, text))


def encoding_note(rel: str, text: FileText) -> str | None:
    """What the model is told first of a file that is not plain UTF-8."""
    return None if text.is_utf8 else f"[{rel} is not plain UTF-8: {text.describe()}]"


def show_lines(
    args: ReadFileArgs,
    file: PathHandle,
    data: bytes,
    text: str,
    ctx: ToolContext,
    note: str | None = None,
) -> ToolResult:
    """The lines of `text` that `args` ask for, numbered, `note` first; the view is recorded
    with `data`, the file's bytes, which an edit checks are unchanged."""
    rel = file.rel
    lines = split_lines(to_lf(text))
    start, end = args.start_line, args.end_line
    if args.window is not None:
        if start is not None or end is not None:
            return ToolResult.error("give start_line/end_line or window, not both")
        try:
            found = locate(args.window.spec(), lines, rel)
        except WindowError as err:
            return ToolResult.error(str(err))
        start, end = found.start, found.end
    ctx.state.record_view(file.path, data, FileView(rel, start, end))
    if not lines:
        return ToolResult(ok=True, output=f"{rel} is empty (0 lines, {len(data)} bytes).")
    shown = _window(rel, lines, start or 1, end)
    if shown.ok and note:  # said first, before the lines it explains
        return ToolResult(ok=True, output=f"{note}\n{shown.output}")
    return shown


def _window(rel: str, lines: list[str], start: int, end: int | None) -> ToolResult:
    total = len(lines)
    if start > total:
        return ToolResult.error(
            f"start_line {start} is past the end of {rel}, which has {total} lines"
        )
    if end is not None and end < start:
        return ToolResult.error(f"end_line {end} is before start_line {start}")
    last = min(end or total, total)
    shown: list[str] = []
    size = 0
    for number in range(start, last + 1):
        text = format_line(number, lines[number - 1])
        size += len(text.encode()) + 1
        if len(shown) >= MAX_LINES or (shown and size > MAX_OUTPUT_BYTES):
            break
        shown.append(text)
    stop = start + len(shown) - 1
    if stop < last:
        shown.append(
            f"[showing lines {start}-{stop} of {total}; "
            f"call read_file with start_line={stop + 1} to read on]"
        )
    return ToolResult(ok=True, output="\n".join(shown))


TOOL = ReadFile()
