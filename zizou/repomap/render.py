"""Turning ranked definitions into the map text, as many as fit a token budget.

Definitions are grouped by file (files in the order of their best definition, lines in source
order) and shown as `line│signature`, so the model can open the right lines with read_file. Files
that are not shown with definitions follow by name, best first. The number of items that fit is
found by binary search with the real tokenizer; only prefixes that were counted are ever returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zizou.repomap.tokens import TokenCounter

HEADER = "Relevant definitions by file (line│signature):\n"
# Tokens are rarely longer than this many characters, so longer prefixes never need counting.
MAX_CHARS_PER_TOKEN = 10


@dataclass(frozen=True, slots=True)
class Shown:
    """A definition as the map shows it."""

    path: str
    line: int
    signature: str


Item = Shown | str  # a definition, or a file shown by name


@dataclass(frozen=True)
class Fitted:
    text: str
    tokens: int
    definitions: int  # shown
    files: int  # shown, with definitions or by name


def render(items: Sequence[Item]) -> str:
    if not items:
        return ""
    groups: dict[str, list[Shown]] = {}
    for item in items:
        if isinstance(item, str):
            groups.setdefault(item, [])
        else:
            groups.setdefault(item.path, []).append(item)
    lines = [HEADER.rstrip("\n")]
    for path, defs in groups.items():
        if not defs:
            lines.append(path)
            continue
        lines.append(f"{path}:")
        for item in sorted(defs, key=lambda d: d.line):
            lines.append(f"{item.line:>5}│{item.signature}")
    return "\n".join(lines) + "\n"


def fit(items: Sequence[Item], budget: int, counter: TokenCounter) -> Fitted:
    """The longest prefix of `items` whose rendering is at most `budget` tokens."""
    if budget <= 0 or not items:
        return Fitted("", 0, 0, 0)
    counted: dict[int, int] = {}

    def tokens(k: int) -> int:
        if k not in counted:
            counted[k] = counter.count(render(items[:k]))
        return counted[k]

    high = _upper_bound(items, budget)
    while high < len(items) and tokens(high) <= budget:
        high = min(len(items), high * 2)
    low = 0  # invariant: prefix `low` fits (the empty map always does)
    while low < high:
        middle = (low + high + 1) // 2
        if tokens(middle) <= budget:
            low = middle
        else:
            high = middle - 1
    if low == 0:
        return Fitted("", 0, 0, 0)
    shown = items[:low]
    definitions = sum(1 for item in shown if not isinstance(item, str))
    paths = {item if isinstance(item, str) else item.path for item in shown}
    return Fitted(render(shown), tokens(low), definitions, len(paths))


def _upper_bound(items: Sequence[Item], budget: int) -> int:
    """A prefix length whose text surely has more than `budget` tokens (or all items)."""
    limit = budget * MAX_CHARS_PER_TOKEN
    chars = len(HEADER)
    for k, item in enumerate(items, start=1):
        chars += len(item) + 1 if isinstance(item, str) else len(item.signature) + 7
        if chars > limit:
            return k
    return len(items)


__all__ = ["HEADER", "Fitted", "Item", "Shown", "fit", "render"]
