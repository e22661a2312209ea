"""Edits matched by the line rules: old_string's lines found as a block of whole lines of the
file, and the change from old_string to new_string made to that block.

The span replaced runs from the start of the block's first line to the end of its last line's
text: every line ending outside it, and the block's last one, stays as it is. The lines that
replace the block come from `patch.rewrite`: the file's own where the model kept a line, the
model's where it wrote one (ending with the file's newline).
"""

from __future__ import annotations

from dataclasses import dataclass

from zizou.tools._atomic import split_lines, to_lf
from zizou.tools._edits.edit import Edit, Refused, Span
from zizou.tools._edits.patch import Writer, rewrite
from zizou.tools._edits.rules import LINE_RULES, Found, Key, find_blocks, keys, needed
from zizou.tools._edits.units import file_unit
from zizou.tools._edits.written import writer_for

MAX_LISTED = 20


@dataclass(frozen=True)
class File:
    """The text as lines (each keeps its "\\r" in a CRLF file) and where each one starts."""

    text: str
    lines: list[str]
    starts: list[int]
    newline: str

    @classmethod
    def of(cls, text: str, newline: str) -> File:
        lines = text.split("\n")
        if lines[-1] == "":
            lines.pop()
        starts, at = [], 0
        for line in lines:
            starts.append(at)
            at += len(line) + 1
        return cls(text, lines, starts, newline)

    def ending(self, index: int) -> str:
        """A kept line's own line ending (a mixed file keeps each line's), or the file's for
        the last line of a file that has none."""
        if self.lines[index].endswith("\r"):
            return "\r\n"
        return "\n" if index < len(self.lines) - 1 else self.newline


@dataclass(frozen=True)
class Blocks:
    """An edit made by the line rules: the spans it replaces, the normalisations its match
    needed, and what of the model's lines was written otherwise (its slips undone)."""

    spans: list[Span]
    normalised: tuple[str, ...]
    corrected: tuple[str, ...]


def block_edit(text: str, edit: Edit, rel: str, newline: str) -> Blocks | None:
    """The spans the first line rule that finds old_string's lines replaces; None when no
    rule finds them; Refused when the first that does finds several places (and replace_all
    is not set)."""
    file = File.of(text, newline)
    old, new = whole_lines(edit.old, edit.new)
    unit = file_unit(file.lines)
    made: dict[bool, tuple[list[Key], list[Key]]] = {}  # the keys, by whether they fold
    for rule in LINE_RULES:
        if rule.lookalikes not in made:
            made[rule.lookalikes] = (keys(file.lines, rule), keys(old, rule))
        found = find_blocks(*made[rule.lookalikes], rule, unit)
        if not found:
            continue
        if len(found) > 1 and not edit.replace_all:
            where = ", ".join(_lines_in_words(f) for f in found[:MAX_LISTED])
            raise Refused(
                f"old_string is not in {rel} exactly, and after normalising {rule.name} it "
                f"matches {len(found)} places (lines {where}); add surrounding lines to "
                "old_string so it matches once, or set replace_all to true to replace every one"
            )
        places = _apart(found)
        notes: list[str] = []
        spans = []
        for place in places:
            writer = writer_for(file.lines, place, old, new, unit)
            spans.append(span_of(file, place, old, new, writer))
            notes += [note for note in writer.notes() if note not in notes]
        normalised = _normalised(file, edit, old, places[0]) or (rule.name,)
        return Blocks(spans, normalised, tuple(notes))
    return None


def whole_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """The lines of old_string and new_string. A final newline on old_string only says its
    last line is whole, and then so does one on new_string; a newline ending new_string alone
    adds an empty line, as it would in an exact match. (One ending old_string alone does not
    join the next line to the last new one, as an exact match would: whole lines stay whole.)
    """
    old, new = to_lf(old), to_lf(new)
    if old.endswith("\n") or not new:
        return split_lines(old), split_lines(new)
    return split_lines(old), new.split("\n")


def _apart(found: list[Found]) -> list[Found]:
    """The places in order, leaving out each that overlaps the one before (for replace_all)."""
    kept: list[Found] = []
    for place in found:
        if not kept or place.start >= kept[-1].end:
            kept.append(place)
    return kept


def span_of(
    file: File,
    found: Found,
    old: list[str],
    new: list[str],
    writer: Writer,
    elided: dict[int, tuple[int, int]] | None = None,
) -> Span:
    """The block's span and the text that replaces it; when nothing does, the lines go with
    their line ending (or, at the end of a file without a final newline, the one before)."""
    pieces = rewrite(found, old, new, writer, elided)
    start = file.starts[found.start]
    end = file.starts[found.end - 1] + len(file.lines[found.end - 1].removesuffix("\r"))
    if not pieces:
        if found.end < len(file.lines):
            end = file.starts[found.end]
        elif end < len(file.text):
            end = len(file.text)
        elif start > 0:
            start -= 2 if file.text[start - 2 : start] == "\r\n" else 1
        return Span(start, end, "")
    parts: list[str] = []
    for k, piece in enumerate(pieces):
        last = k == len(pieces) - 1
        if isinstance(piece, str):
            parts.append(piece if last else piece + file.newline)
        else:
            line = file.lines[piece].removesuffix("\r")
            parts.append(line if last else line + file.ending(piece))
    return Span(start, end, "".join(parts))


def _normalised(file: File, edit: Edit, old: list[str], found: Found) -> tuple[str, ...]:
    """The normalisations the match needed, line endings first."""
    crlf_block = any(file.lines[f].endswith("\r") for f in range(found.start, found.end))
    endings = ["line endings"] if crlf_block != ("\r\n" in edit.old) else []
    return tuple(endings + needed(file.lines, old, found))


def _lines_in_words(found: Found) -> str:
    first, last = found.start + 1, found.end
    return str(first) if first == last else f"{first}-{last}"
