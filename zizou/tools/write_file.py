"""The write_file tool: create a file, or replace one whole, without ever leaving half of it.

The write goes through a temp file and a rename (see `_atomic`), keeps an existing file's mode,
encoding (a byte-order mark, UTF-16, a legacy one-byte encoding: see `_encoding`), newline style
and whether it ends with a newline, and records the new content so the model may edit what it
just wrote.
"""

from __future__ import annotations

import stat

from pydantic import Field

from zizou.confined import PathHandle
from zizou.errors import PathError
from zizou.tools._atomic import (
    newline_of,
    split_lines,
    to_lf,
    unified_diff,
    with_newline,
)
from zizou.tools._encoding import EncodingProblem, FileText, decode
from zizou.tools._parse_guard import refused_write
from zizou.tools.base import (
    Access,
    Tool,
    ToolArgs,
    ToolContext,
    ToolResult,
    file_access,
    kept,
)
from zizou.tools.read_file import MAX_FILE_BYTES


class WriteFileArgs(ToolArgs):
    path: str = Field(description="File to create or overwrite.")
    content: str = Field(description="The file's complete new content.")


class WriteFile(Tool[WriteFileArgs]):
    """Create a file, or replace an existing file's whole content (missing directories are made).

    To change part of a file, prefer edit_file. An existing file keeps its mode, encoding, line
    endings and final newline.
    """

    name = "write_file"
    access_kind = "write"
    summary = "Create a file or replace its whole content; to change part of a file, use edit_file."
    Args = WriteFileArgs

    def access(self, args: WriteFileArgs, ctx: ToolContext) -> Access:
        return file_access("write", ctx, args.path)

    def work(self, args: WriteFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        try:
            return _write(access.handle(), args.content, ctx)
        except PathError as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not write {args.path}: {err.strerror or err}")


def _write(file: PathHandle, content: str, ctx: ToolContext) -> ToolResult:
    rel, path = file.rel, file.path
    info = file.stat()
    if info is not None and stat.S_ISDIR(info.st_mode):
        return ToolResult.error(f"{rel} is a directory; give the path of a file inside it")
    if info is not None and not stat.S_ISREG(info.st_mode):
        return ToolResult.error(f"{rel} is not a regular file; it cannot be overwritten")
    old = None if info is None else file.read_bytes(MAX_FILE_BYTES)
    was = None if old is None else decode(old)  # None too for a binary file: it is replaced
    if was is not None:
        content = _shaped_like(content, was.text)
    try:
        data = (was or UTF8).encode(content)
    except EncodingProblem as err:
        return ToolResult.error(f"cannot write {rel}: {err}")
    if old != data:
        refused = refused_write(ctx, rel, old, data)
        if refused is not None:
            return refused
        file.atomic_write(data)
    if was is not None:
        old_text: str | None = was.shown
    else:
        old_text = None if old is None else old.decode("utf-8", errors="replace")
    before = None if old_text is None else split_lines(to_lf(old_text))
    ctx.state.file_written(path, rel, before, split_lines(to_lf(content)), data)
    size = f"{len(split_lines(content))} lines, {len(data):,} bytes"
    if old is None:
        summary = f"Created {rel} ({size})."
    elif old == data:
        summary = f"{rel} already had this content ({size}); nothing changed."
    else:
        summary = f"Overwrote {rel} ({size}; it had {len(split_lines(old_text or ''))} lines)."
    diff = unified_diff(rel, old_text, content)
    return ToolResult(ok=True, output=summary, diff=diff, replaced=kept(old_text))


UTF8 = FileText("", "utf-8")


def _shaped_like(content: str, old: str) -> str:
    """`content` with the old text's newline style, and its final newline or none."""
    if not content or not old:
        return content
    newline = newline_of(old)
    content = with_newline(content, newline)
    if old.endswith("\n") and not content.endswith("\n"):
        content += newline
    elif not old.endswith("\n") and content.endswith("\n"):
        content = content.removesuffix(newline).removesuffix("\n")
    return content


TOOL = WriteFile()
