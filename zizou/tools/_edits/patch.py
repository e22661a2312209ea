"""Applying the model's change to the lines a tolerant rule found.

When old_string matched only after normalising, its lines are not the file's byte for byte, so
new_string is not written over them blindly. The model's edit is the change from old_string to
new_string: which lines it keeps, replaces, removes or adds. That change is applied to the lines
found. The lines the model kept stay exactly as the file has them (their trailing spaces, their
straight quotes, their line endings), so a look-alike or a lost space the model copied into an
unchanged line is not written back; the lines it wrote are written as it wrote them, re-indented
by the difference between its indentation and the file's. A blank line the model did not see
stays, unless the lines on both sides of it are removed.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from zizou.tools._edits.rules import SPACES, Found

# What replaces the found lines: a file line's index where the line stays as it is, a line of
# text where the model wrote one.
Piece = int | str
# How a line the model wrote is written: given its index in new_string and the index of the
# old line it takes the place of (None: a line it added).
Writer = Callable[[int, int | None], str]


@dataclass
class _Plan:
    """The change from the old lines to the new ones, said per old line."""

    kept: list[bool]  # the model kept the line as it was
    instead: list[list[int]]  # the new lines that take the old line's place
    after: list[list[int]]  # the new lines added after the old line
    before: list[int] = field(default_factory=list)  # new lines added before the first one

    def gone(self, old: int) -> bool:
        return not self.kept[old] and not self.instead[old]


def rewrite(
    found: Found,
    old: list[str],
    new: list[str],
    write: Writer | None = None,
    elided: Mapping[int, tuple[int, int]] | None = None,
) -> list[Piece]:
    """What replaces file lines [found.start, found.end) when the change from `old` to `new`
    is applied to them. `elided`: old lines that stand for a run of file lines [a, b), which
    stay where the model kept the line (it must)."""
    plan = _plan(old, new)
    in_file = dict(found.pairs)
    elided = elided or {}

    def written(indices: list[int], instead_of: int | None = None) -> list[Piece]:
        if write is None:
            return [reindent(new[j], found.old_indent, found.file_indent) for j in indices]
        return [write(j, instead_of) for j in indices]

    out: list[Piece] = written(plan.before)
    unseen_from = found.start
    for o in range(len(old)):
        f = in_file.get(o)
        if o in elided:
            out += range(unseen_from, elided[o][1])
            unseen_from = elided[o][1]
        elif f is not None:
            if not (o > 0 and plan.gone(o - 1) and plan.gone(o)):
                out += range(unseen_from, f)  # file lines the model did not see
            unseen_from = f + 1
        if plan.kept[o] and f is not None:
            out.append(f)
        out += written(plan.instead[o], o) + written(plan.after[o])
    return out


def _plan(old: list[str], new: list[str]) -> _Plan:
    size = len(old)
    plan = _Plan([False] * size, [[] for _ in old], [[] for _ in old])
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            plan.kept[i1:i2] = [True] * (i2 - i1)
            continue
        # Replaced lines pair up in order; new lines beyond those follow the last old one.
        paired = min(i2 - i1, j2 - j1)
        for t in range(paired):
            plan.instead[i1 + t].append(j1 + t)
        extra = list(range(j1 + paired, j2))
        if i2 > 0:
            plan.after[i2 - 1] += extra
        else:
            plan.before += extra
    return plan


def reindent(line: str, old_indent: str, file_indent: str) -> str:
    """A line the model wrote, moved from its quote's indentation to the file's."""
    if old_indent == file_indent or not line.strip(SPACES):
        return line
    if line.startswith(old_indent):
        return file_indent + line[len(old_indent) :]
    # Written to the left of the quote's indentation: shifted by as many columns, when the
    # indentation is all one character (spaces, or tabs) on both sides.
    body = line.lstrip(SPACES)
    indent = line[: len(line) - len(body)]
    chars = set(indent + old_indent + file_indent)
    if len(chars) != 1:
        return line
    width = max(0, len(indent) + len(file_indent) - len(old_indent))
    return chars.pop() * width + body
