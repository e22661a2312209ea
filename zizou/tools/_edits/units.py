"""Indentation counted in levels, so a quote indented with tabs finds a file indented with
spaces (or two spaces a level for four), and the lines the model writes are indented the
file's way.

A file's unit is a tab or a number of spaces (`file_unit`); an indentation is so many units and
a few spaces more (`measure`: continuation lines align by spaces). What a quote's unit is comes
from the match when it can (its lines one level in pair with the file's), else from the quote's
own lines (`quote_unit`).
"""

from __future__ import annotations

from collections import Counter

from zizou.tools._edits.edit import Refused

SPACES = " \t"
WIDTHS = (2, 3, 4, 8)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(SPACES))]


def file_unit(lines: list[str]) -> str | None:
    """The file's indentation unit: "\\t", or the spaces its blocks step in by; None when
    nothing in it is indented."""
    tabs = spaces = 0
    steps: Counter[int] = Counter()
    before = 0
    for line in lines:
        if not line.strip():
            continue
        indent = _indent(line)
        tabs += indent.startswith("\t")
        spaces += indent.startswith(" ")
        if "\t" not in indent:
            if len(indent) > before:
                steps[len(indent) - before] += 1
            before = len(indent)
    if not tabs and not spaces:
        return None
    if tabs > spaces:
        return "\t"
    common = [width for width, _ in steps.most_common() if width in WIDTHS]
    return " " * (common[0] if common else 4)


def measure(indent: str, unit: str) -> tuple[int, int] | None:
    """`indent` as (levels of `unit`, spaces more); None when it is not made that way (tabs in
    a spaces unit, tabs after spaces)."""
    if unit == "\t":
        levels = len(indent) - len(indent.lstrip("\t"))
        rest = indent[levels:]
        return (levels, len(rest)) if "\t" not in rest else None
    if "\t" in indent:
        return None
    return divmod(len(indent), len(unit))


def levels_agree(pairs: list[tuple[str, str]], quote: str, unit: str) -> bool:
    """Whether each (quote's, file's) relative indentation is as many levels and spaces."""
    return all(
        (found := measure(old, quote)) is not None and found == measure(there, unit)
        for old, there in pairs
    )


def proven_unit(pairs: list[tuple[str, str]], unit: str) -> str | None:
    """The quote's unit under which its relative indentations are the file's, in levels; None
    when none is (or when no line is indented within the block, which proves nothing)."""
    if not any(old for old, _ in pairs):
        return None
    candidates = ["\t"] if any("\t" in old for old, _ in pairs) else [" " * w for w in WIDTHS]
    for quote in candidates:
        if levels_agree(pairs, quote, unit):
            return quote
    return None


def quote_unit(indents: list[str], common: str) -> str | None:
    """The unit a quote's own lines are indented in (tabs if it uses them; else the smallest
    step in from its common indentation); None when none is stepped in."""
    if any("\t" in indent for indent in indents):
        return "\t"
    steps = [len(i) - len(common) for i in indents if i.startswith(common) and len(i) > len(common)]
    return " " * min(steps) if steps else None


def reindented(line: str, old_indent: str, file_indent: str, quote: str, unit: str) -> str:
    """A written line moved from the quote's indentation (in `quote` units) to the file's (in
    `unit`s), level for level."""
    body = line.lstrip(SPACES)
    if not body:
        return line
    indent = line[: len(line) - len(body)]
    base = measure(file_indent, unit) or (0, len(file_indent))
    if indent.startswith(old_indent):
        step = measure(indent[len(old_indent) :], quote)
        if step is None:
            raise _mixed(line, quote, unit)
        levels, extra = step
        return file_indent + unit * levels + " " * extra + body
    whole, start = measure(indent, quote), measure(old_indent, quote)
    if whole is None or start is None:
        raise _mixed(line, quote, unit)
    levels = max(0, base[0] + whole[0] - start[0])
    return unit * levels + " " * whole[1] + body


def _mixed(line: str, quote: str, unit: str) -> Refused:
    def said(u: str) -> str:
        return "tabs" if u == "\t" else f"{len(u)} spaces"

    return Refused(
        f"new_string's line {line.strip()!r} mixes tabs and spaces in its indentation, so it "
        f"cannot be re-indented from old_string's {said(quote)} a level to the file's "
        f"{said(unit)}; indent new_string as the file is"
    )
