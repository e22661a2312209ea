"""The edit_file tool: replace an exact string in a file the model has read and that is unchanged.

Exact matching keeps edits predictable; when it fails, the result shows the most similar lines
so the model can correct its quote instead of guessing again.
"""

from __future__ import annotations

import difflib
import re

from pydantic import Field

from zizou.confined import PathHandle
from zizou.errors import PathError
from zizou.tools._atomic import (
    detect_newline,
    split_lines,
    to_lf,
    unified_diff,
    with_newline,
)
from zizou.tools.base import (
    Access,
    Tool,
    ToolArgs,
    ToolContext,
    ToolResult,
    file_access,
    kept,
)
from zizou.tools.read_file import format_line, seen_text

MAX_SIMILARITY_LINES = 20_000
MIN_MATCHED_FRACTION = 0.5
EXCERPT_CONTEXT = 2
MAX_LISTED = 20
_NUMBER_PREFIX = re.compile(r"^\s*\d+\t")


class EditFileArgs(ToolArgs):
    path: str = Field(description="File to edit, relative to the project root.")
    old_string: str = Field(
        description="Exact text to replace, copied from the file without line-number prefixes; "
        "include enough surrounding lines to make it unique."
    )
    new_string: str = Field(description="Text to put in its place.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )


class EditFile(Tool[EditFileArgs]):
    """Replace an exact string in an existing file.

    Read the file with read_file first; the edit is refused if the file changed since. old_string
    must match the file exactly (indentation included, line-number prefixes excluded) and occur
    once, unless replace_all is true. To create a file or rewrite it whole, use write_file.
    """

    name = "edit_file"
    access_kind = "write"
    summary = (
        "Replace an exact string that occurs once in a file you have read, "
        "or every match with replace_all."
    )
    Args = EditFileArgs

    def access(self, args: EditFileArgs, ctx: ToolContext) -> Access:
        return file_access("write", ctx, args.path)

    def work(self, args: EditFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
        if not args.old_string:
            return ToolResult.error(
                "old_string is empty; to create a file or replace all of it, use write_file"
            )
        if to_lf(args.old_string) == to_lf(args.new_string):
            return ToolResult.error("old_string and new_string are the same; nothing to change")
        try:
            return _edit(access.handle(), args, ctx)
        except PathError as err:
            return ToolResult.error(str(err))
        except OSError as err:
            return ToolResult.error(f"could not edit {args.path}: {err.strerror or err}")


def _edit(file: PathHandle, args: EditFileArgs, ctx: ToolContext) -> ToolResult:
    rel, path = file.rel, file.path
    seen = seen_text(file, ctx, "edit_file")
    if isinstance(seen, ToolResult):
        return seen
    data, decoded = seen
    text, old, new = to_lf(decoded), to_lf(args.old_string), to_lf(args.new_string)
    starts = _find_all(text, old)
    if not starts:
        return ToolResult.error(_no_match(rel, text, old))
    if len(starts) > 1 and not args.replace_all:
        return ToolResult.error(
            f"old_string occurs {len(starts)} times in {rel} (lines "
            f"{_line_list(text, starts)}); add surrounding lines to old_string so it matches "
            "once, or set replace_all to true to replace every occurrence"
        )
    starts = starts if args.replace_all else starts[:1]
    new_text = text.replace(old, new, len(starts))
    out = with_newline(new_text, detect_newline(data)).encode("utf-8")
    file.atomic_write(out)
    ctx.state.file_written(path, rel, split_lines(text), split_lines(new_text), out)
    shift = len(new) - len(old)
    moved = [start + k * shift for k, start in enumerate(starts)]
    where = _line_list(new_text, moved)
    count = "1 occurrence" if len(starts) == 1 else f"{len(starts)} occurrences"
    summary = f"Replaced {count} in {rel}, starting at line{'s' * (len(starts) > 1)} {where}."
    diff = unified_diff(rel, text, new_text)
    return ToolResult(ok=True, output=summary, diff=diff, replaced=kept(decoded))


def _find_all(text: str, needle: str) -> list[int]:
    """Start offsets of the non-overlapping occurrences that `str.replace` would replace."""
    starts: list[int] = []
    at = text.find(needle)
    while at != -1:
        starts.append(at)
        at = text.find(needle, at + len(needle))
    return starts


def _line_list(text: str, offsets: list[int]) -> str:
    numbers = [str(text.count("\n", 0, offset) + 1) for offset in offsets[:MAX_LISTED]]
    more = f" and {len(offsets) - MAX_LISTED} more" if len(offsets) > MAX_LISTED else ""
    return ", ".join(numbers) + more


def _no_match(rel: str, text: str, old: str) -> str:
    lines, wanted = split_lines(text), split_lines(old)
    hint = ""
    if all(_NUMBER_PREFIX.match(line) for line in wanted if line.strip()):
        hint = "\nold_string seems to include read_file's line-number prefixes; leave them out."
    found = _whitespace_match(lines, wanted)
    if found is not None:
        head = (
            f"old_string was not found in {rel}, but it matches {_span(found, len(wanted))} "
            "if whitespace is ignored; copy the indentation and spacing exactly "
            "(tabs vs spaces count):"
        )
        return head + "\n" + _excerpt(lines, found, len(wanted)) + hint
    found = _most_similar(lines, old, len(wanted))
    if found is None:
        return (
            f"old_string was not found in {rel}, and nothing in it looks similar; "
            "read_file it again to see its current content" + hint
        )
    where = _span(found, len(wanted))
    head = f"old_string was not found in {rel}; the most similar text is at {where}:"
    tail = "\nCopy the text exactly as the file has it, or read_file it again."
    return head + "\n" + _excerpt(lines, found, len(wanted)) + tail + hint


def _whitespace_match(lines: list[str], wanted: list[str]) -> int | None:
    """The first line of a window equal to `wanted` when runs of whitespace are ignored."""
    target = "\n".join(" ".join(line.split()) for line in wanted)
    if not target.strip():
        return None
    flat = [" ".join(line.split()) for line in lines]
    for start in range(len(lines) - len(wanted) + 1):
        if target in "\n".join(flat[start : start + len(wanted)]):
            return start
    return None


def _most_similar(lines: list[str], old: str, size: int) -> int | None:
    """The first line of the `size`-line window sharing most characters, in order, with `old`.

    Scoring by characters of `old` matched (not by `ratio`) keeps a window whose lines are
    longer than a partial-line `old_string` from losing to a shorter, worse one.
    """
    if not lines or len(lines) > MAX_SIMILARITY_LINES:
        return None
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(old)
    best, best_start = 0, 0
    for start in range(max(1, len(lines) - size + 1)):
        window = "\n".join(lines[start : start + size])
        matcher.set_seq1(window)
        bound = matcher.quick_ratio() * (len(window) + len(old)) / 2
        if min(len(window), len(old)) <= best or bound <= best:
            continue
        matched = sum(block.size for block in matcher.get_matching_blocks())
        if matched > best:
            best, best_start = matched, start
    return best_start if best >= MIN_MATCHED_FRACTION * len(old) else None


def _span(start: int, size: int) -> str:
    """Lines from 0-based `start`, in words: "line 4" or "lines 4-6"."""
    return f"line {start + 1}" if size <= 1 else f"lines {start + 1}-{start + size}"


def _excerpt(lines: list[str], start: int, size: int) -> str:
    first = max(0, start - EXCERPT_CONTEXT)
    last = min(len(lines), start + max(size, 1) + EXCERPT_CONTEXT, first + 40)
    return "\n".join(format_line(n + 1, lines[n]) for n in range(first, last))


TOOL = EditFile()
