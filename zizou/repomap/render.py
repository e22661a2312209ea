"""Turning ranked definitions into the map text, as many as fit a token budget.

Definitions are grouped by file (files in the order of their best definition, lines in source
order) and shown as `line│signature`, so the model can open the right lines with read_file. Files
that are not shown with definitions follow by name, best first.

The map is counted line by line. cl100k_base's pre-tokenizer never joins a newline with what
follows it unless that is more whitespace, so text made of non-blank lines without a carriage
return has exactly the sum of its lines' tokens, each line counted with its newline. `_line`
keeps every line so; the fit then needs only the lines up to the budget, each counted once
(tokens.LineCounter remembers them across renders).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zizou.repomap.tokens import TokenCounter

HEADER = "Relevant definitions by file (line│signature):\n"


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
    lines = [HEADER]
    for path, defs in groups.items():
        lines.append(_path_line(path, bool(defs)))
        lines.extend(_def_line(item) for item in sorted(defs, key=lambda d: d.line))
    return "".join(lines)


def fit(items: Sequence[Item], budget: int, counter: TokenCounter) -> Fitted:
    """The longest prefix of `items` whose rendering is at most `budget` tokens."""
    if budget <= 0 or not items:
        return Fitted("", 0, 0, 0)
    total = counter.count(HEADER)
    grouped: dict[str, bool] = {}  # path -> shown with definitions (else by name)
    shown = 0
    for item in items:
        if isinstance(item, str):
            cost = 0 if item in grouped else counter.count(_path_line(item, False))
            path, has_defs = item, grouped.get(item, False)
        else:
            path, has_defs = item.path, True
            cost = counter.count(_def_line(item))
            if not grouped.get(path, False):
                cost += counter.count(_path_line(path, True))
                if path in grouped:  # listed by name before: now a group header instead
                    cost -= counter.count(_path_line(path, False))
        if total + cost > budget:
            break
        total += cost
        grouped[path] = has_defs
        shown += 1
    if shown == 0:
        return Fitted("", 0, 0, 0)
    prefix = items[:shown]
    definitions = sum(1 for item in prefix if not isinstance(item, str))
    return Fitted(render(prefix), total, definitions, len(grouped))


def clean_line(text: str) -> str:
    """One line of the map: no line breaks inside, never blank (see the module docstring)."""
    if "\r" in text or "\n" in text:
        text = text.replace("\r", "\\r").replace("\n", "\\n")
    return text if text.strip() else repr(text)


def _path_line(path: str, has_defs: bool) -> str:
    return clean_line(path + ":" if has_defs else path) + "\n"


def _def_line(item: Shown) -> str:
    return clean_line(f"{item.line:>5}│{item.signature}") + "\n"


__all__ = ["HEADER", "Fitted", "Item", "Shown", "clean_line", "fit", "render"]
