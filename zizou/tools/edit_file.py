"""The edit_file tool: replace text in a file the model has read and that is unchanged since.

old_string is matched exactly first. Models misquote code in predictable ways (line endings,
trailing spaces, indentation, curly quotes, blank lines), so when the exact text is not there
the engine (`_edits`) tries a few tolerant rules in order and says which one matched; each must
find exactly one place, and nothing outside the lines found ever changes. Of a tolerantly
matched block, the lines the model left unchanged stay as the file has them and the lines it
wrote are written with the slips the match proved undone (see `_edits/written.py`); an elision
marker in old_string stands for the lines it leaves out (`_edits/elisions.py`). When nothing
matches, the result shows the closest lines and how they differ, so the next try lands. Several
edits can be sent at once: they are made in order, all or none.
"""

from __future__ import annotations

import json
import logging
from typing import Self

from pydantic import Field, model_validator

from zizou.confined import PathHandle
from zizou.errors import PathError
from zizou.tools._atomic import split_lines, to_lf, unified_diff
from zizou.tools._edits import Edit, EditFailed, Made, apply_edits, line_list
from zizou.tools._encoding import SHOWN_FOR_ESCAPED, EncodingProblem, FileText
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
from zizou.tools.read_file import seen_text

log = logging.getLogger(__name__)


class OneEdit(ToolArgs):
    old_string: str
    new_string: str
    replace_all: bool = False


class EditFileArgs(ToolArgs):
    path: str = Field(description="File to edit.")
    old_string: str | None = Field(
        default=None,
        description="Text to replace, with enough lines to be unique.",
    )
    new_string: str | None = Field(default=None, description="The replacement.")
    replace_all: bool = Field(
        default=False, description="Replace every occurrence instead of exactly one."
    )
    edits: list[OneEdit] | None = Field(
        default=None,
        description="Instead of old_string/new_string: several edits.",
    )

    @model_validator(mode="after")
    def _one_form(self) -> Self:
        """Either the single form or `edits`: a model mixing them would not know what ran."""
        single = self.old_string is not None or self.new_string is not None
        if self.edits is not None:
            if single or self.replace_all:
                raise ValueError(
                    "give old_string and new_string, or edits, not both (with edits, "
                    "replace_all goes inside each edit)"
                )
            if not self.edits:
                raise ValueError("edits is empty; give at least one edit")
        elif self.old_string is None or self.new_string is None:
            raise ValueError(
                "give old_string and new_string (one edit), or edits (a list of several)"
            )
        return self

    def as_edits(self) -> list[Edit]:
        if self.edits is not None:
            return [Edit(e.old_string, e.new_string, e.replace_all) for e in self.edits]
        return [Edit(self.old_string or "", self.new_string or "", self.replace_all)]


class EditFile(Tool[EditFileArgs]):
    """Replace old_string with new_string in a file you have read (and not changed since).

    Copy old_string without line-number prefixes; it must occur once, or set replace_all. Slips
    in line endings, trailing spaces, indentation, look-alikes (curly quotes, dashes) and blank
    lines are forgiven when the lines match one place only; the result says so. A line of
    old_string that is only `# ... existing code ...` (or `...`) stands for the unchanged lines
    between its neighbours; keep it in new_string to keep them. For several changes to one
    file, pass edits: made in order, all or none. To write a whole file, use write_file.
    """

    name = "edit_file"
    access_kind = "write"
    summary = "Replace text quoted from a file you have read, or make a list of edits."
    Args = EditFileArgs

    def access(self, args: EditFileArgs, ctx: ToolContext) -> Access:
        return file_access("write", ctx, args.path)

    def preview(self, args: EditFileArgs, access: Access, ctx: ToolContext) -> str | None:
        fields = args.model_dump(exclude_none=True, exclude={"path"})
        return json.dumps(fields, indent=2)[:4000]

    def work(self, args: EditFileArgs, access: Access, ctx: ToolContext) -> ToolResult:
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
    text = decoded.text
    edits = args.as_edits()
    try:
        new_text, made = apply_edits(text, edits, rel)
    except EditFailed as failed:
        return ToolResult.error(_failure(rel, failed, len(edits), decoded, edits))
    if new_text == text:
        return ToolResult.error(f"{rel} already has that text; the edit changes nothing")
    try:
        out = decoded.encode(new_text)
    except EncodingProblem as err:
        return ToolResult.error(f"cannot edit {rel}: {err}")
    refused = refused_write(ctx, rel, data, out)
    if refused is not None:
        return refused
    for number, one in enumerate(made, 1):
        if one.how:
            log.info("edit_file %s: edit %d%s", rel, number, one.how)
    file.atomic_write(out)
    shown_before, shown_after = decoded.shown, decoded.show(new_text)
    before, after = to_lf(shown_before), to_lf(shown_after)
    ctx.state.file_written(path, rel, split_lines(before), split_lines(after), out)
    diff = unified_diff(rel, before, after)
    return ToolResult(
        ok=True, output=_summary(rel, shown_after, made), diff=diff, replaced=kept(shown_before)
    )


def _failure(rel: str, failed: EditFailed, count: int, decoded: FileText, edits: list[Edit]) -> str:
    """Why the edits were not made; the file's stray bytes shown as they are in read_file."""
    reason = decoded.show(failed.reason)
    if decoded.stray and SHOWN_FOR_ESCAPED in edits[failed.index].old:
        reason += (
            f" ({rel} has bytes that are not UTF-8, shown as {SHOWN_FOR_ESCAPED}: text that "
            "holds one cannot be matched or rewritten; edit the lines around it)"
        )
    if count == 1:
        return reason
    return (
        f"edit {failed.index + 1} of {count} failed, so none was made and {rel} is unchanged: "
        f"{reason}"
    )


def _summary(rel: str, text: str, made: list[Made]) -> str:
    """The result's first line: how many replacements, where they are now, and how each
    edit's text was matched when it was not exactly."""
    if len(made) == 1:
        one = made[0]
        count = len(one.starts)
        what = "1 occurrence" if count == 1 else f"{count} occurrences"
        where = f"line{'s' * (count > 1)} {line_list(text, list(one.starts))}"
        return f"Replaced {what} in {rel}, starting at {where}{one.how}."
    parts = [
        f"edit {number} at line{'s' * (len(one.starts) > 1)} "
        f"{line_list(text, list(one.starts))}{one.how}"
        for number, one in enumerate(made, 1)
    ]
    return f"Made {len(made)} edits to {rel}: " + "; ".join(parts) + "."


TOOL = EditFile()
