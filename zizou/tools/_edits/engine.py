"""Finding where an edit goes and making it: exact first, then the tolerant rules in order.

An edit is tried exactly (old_string as a substring of the file), then with line endings
normalised (still a substring), then by each rule of `rules.LINE_RULES` on whole lines
(`blocks`), and last with old_string's elision markers standing for the lines they leave out
(`elisions`). The first rule that finds old_string decides: one place, and the edit is made there;
several, and it is refused as ambiguous, naming their lines (unless replace_all asks for all of
them). Only the bytes of the place found change; the rest of the file, its newline style and
whether it ends with a newline stay as they were.
"""

from __future__ import annotations

from bisect import bisect_left

from zizou.tools._atomic import newline_of, to_lf, with_newline
from zizou.tools._edits.blocks import MAX_LISTED, block_edit
from zizou.tools._edits.closest import explain_no_match
from zizou.tools._edits.edit import Change, Edit, Landed, Refused, Span
from zizou.tools._edits.elisions import elided_edit


def apply_edit(text: str, edit: Edit, rel: str, newline: str | None = None) -> Landed:
    """`text` with `edit` made; Refused when it cannot be (not found, found several times...)."""
    if not edit.old:
        raise Refused("old_string is empty; to create a file or replace all of it, use write_file")
    if to_lf(edit.old) == to_lf(edit.new):
        raise Refused("old_string and new_string are the same; nothing to change")
    newline = newline or newline_of(text)
    landed = _exact(text, edit, rel, newline)
    if landed is None and ("\r" in text or "\r" in edit.old):
        landed = _line_endings(text, edit, rel, newline)
    if landed is None:
        found = block_edit(text, edit, rel, newline) or elided_edit(text, edit, rel, newline)
        if found is not None:
            landed = _landed(text, found.spans, newline, found.normalised, found.corrected)
    if landed is None:
        raise Refused(explain_no_match(rel, to_lf(text), to_lf(edit.old)))
    return landed


def _exact(text: str, edit: Edit, rel: str, newline: str) -> Landed | None:
    starts = _occurrences(text, edit.old, edit.replace_all)
    if not starts:
        return None
    _refuse_several(text, starts, edit, rel, "")
    new = with_newline(edit.new, newline)
    spans = [Span(start, start + len(edit.old), new) for start in starts]
    return _landed(text, spans, newline, ())


def _line_endings(text: str, edit: Edit, rel: str, newline: str) -> Landed | None:
    """old_string found once both sides' CRLFs are LFs; the offsets are mapped back to the
    file's, whose line endings stay as they are."""
    flat, old = to_lf(text), to_lf(edit.old)
    starts = _occurrences(flat, old, edit.replace_all)
    if not starts:
        return None
    removed = _removed_crs(text)

    def raw(at: int) -> int:
        return at + bisect_left(removed, at)

    _refuse_several(text, [raw(s) for s in starts], edit, rel, " after normalising line endings")
    new = with_newline(edit.new, newline)
    spans = [Span(raw(s), raw(s + len(old)), new) for s in starts]
    return _landed(text, spans, newline, ("line endings",))


def _removed_crs(text: str) -> list[int]:
    """Where, in `to_lf(text)`, each CR of a CRLF was taken out."""
    places: list[int] = []
    at = text.find("\r\n")
    while at != -1:
        places.append(at - len(places))
        at = text.find("\r\n", at + 2)
    return places


def _landed(
    text: str,
    spans: list[Span],
    newline: str,
    normalised: tuple[str, ...],
    corrected: tuple[str, ...] = (),
) -> Landed:
    """`text` with `spans` replaced (they are in order and apart), still ending with a newline
    or without one as it did."""
    out: list[str] = []
    changes: list[Change] = []
    at = 0
    for span in spans:
        replacement = span.text
        if span.end == len(text):
            replacement = _final_newline_kept(text, text[: span.start], replacement, newline)
        out += [text[at : span.start], replacement]
        changes.append(Change(span.start, span.end - span.start, len(replacement)))
        at = span.end
    out.append(text[at:])
    return Landed("".join(out), tuple(changes), normalised, corrected)


def _final_newline_kept(text: str, head: str, replacement: str, newline: str) -> str:
    """The replacement of a span that ends the file, such that the file still ends (or still
    does not end) with a newline."""
    if text.endswith("\n"):
        whole = head + replacement
        return replacement + newline if whole and not whole.endswith("\n") else replacement
    if replacement.endswith("\r\n"):
        return replacement[:-2]
    return replacement.removesuffix("\n")


def _occurrences(text: str, needle: str, apart: bool) -> list[int]:
    """Where `needle` starts in `text`: every place, or (`apart`) the non-overlapping ones
    `str.replace` would replace."""
    starts: list[int] = []
    at = text.find(needle)
    while at != -1:
        starts.append(at)
        at = text.find(needle, at + (len(needle) if apart else 1))
    return starts


def _refuse_several(text: str, starts: list[int], edit: Edit, rel: str, how: str) -> None:
    if len(starts) > 1 and not edit.replace_all:
        raise Refused(
            f"old_string occurs {len(starts)} times in {rel}{how} (lines "
            f"{line_list(text, starts)}); add surrounding lines to old_string so it matches "
            "once, or set replace_all to true to replace every occurrence"
        )


def line_list(text: str, offsets: list[int]) -> str:
    """The 1-based lines of `offsets` in `text`: "3, 8", with "and 4 more" past MAX_LISTED."""
    numbers = [str(text.count("\n", 0, offset) + 1) for offset in offsets[:MAX_LISTED]]
    more = f" and {len(offsets) - MAX_LISTED} more" if len(offsets) > MAX_LISTED else ""
    return ", ".join(numbers) + more
