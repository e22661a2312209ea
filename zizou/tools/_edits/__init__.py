"""edit_file's engine, pure text in and out: where an edit goes, and the text once it is made.

Several edits are made in order, each on the text the ones before it left, all or none: the
first that cannot be made stops them, and the caller writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zizou.tools._atomic import newline_of
from zizou.tools._edits.edit import Change, Edit, Landed, Refused
from zizou.tools._edits.engine import apply_edit, line_list
from zizou.tools._edits.rules import LINE_RULES


@dataclass(frozen=True)
class Made:
    """One edit of several, once all are made: where its replacements start in the final text,
    and the normalisations its match needed."""

    starts: tuple[int, ...]
    how: str  # "" or " (matched after normalising ...)"
    normalised: tuple[str, ...]


class EditFailed(Exception):
    """Edit number `index` (from 0) of several could not be made; nothing was."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(reason)
        self.index = index
        self.reason = reason


def apply_edits(text: str, edits: Sequence[Edit], rel: str) -> tuple[str, list[Made]]:
    """`text` with every edit made in order, and where each one landed; EditFailed if any
    cannot be made."""
    newline = newline_of(text)
    made: list[list[int]] = []
    landed_all: list[Landed] = []
    for index, edit in enumerate(edits):
        try:
            landed = apply_edit(text, edit, rel, newline)
        except Refused as err:
            raise EditFailed(index, str(err)) from None
        made = [[_moved(at, landed.changes) for at in starts] for starts in made]
        made.append(_starts_after(landed.changes))
        landed_all.append(landed)
        text = landed.text
    return text, [
        Made(tuple(starts), landed.how, landed.normalised)
        for starts, landed in zip(made, landed_all, strict=True)
    ]


def _starts_after(changes: tuple[Change, ...]) -> list[int]:
    """Where each change's new text starts in the text after all of them."""
    starts, shift = [], 0
    for change in changes:
        starts.append(change.start + shift)
        shift += change.new_len - change.old_len
    return starts


def _moved(at: int, changes: tuple[Change, ...]) -> int:
    """Offset `at` of the text before `changes`, in the text after them (a place inside a
    replaced span moves to the span's start)."""
    shift = 0
    for change in changes:
        if at < change.start:
            break
        if at < change.start + change.old_len:
            return change.start + shift
        shift += change.new_len - change.old_len
    return at + shift


__all__ = [
    "LINE_RULES",
    "Edit",
    "EditFailed",
    "Made",
    "Refused",
    "apply_edits",
    "line_list",
]
