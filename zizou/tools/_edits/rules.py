"""The tolerant rules edit_file tries when old_string is not in the file exactly, and finding a
block of whole lines under them.

Models quote code they have read, and the quote drifts in a few predictable ways: trailing
whitespace dropped, the block re-indented, quotes and dashes "smartened", a blank line added or
lost. Each rule compares lines after one more normalisation than the rule before it, so a block
that drifted in several ways at once is still found; what is found is always a run of whole
lines of the file, so the edit can be applied there and nowhere else.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from zizou.tools._edits.units import proven_unit

SPACES = " \t"
TRAILING = " \t\r\f\v"  # not str.strip()'s Unicode spaces: a no-break space is a look-alike


def _lookalike_table() -> dict[int, str]:
    """Characters a model writes for the ASCII ones code uses, mapped to those."""
    groups = {
        "'": "\u2018\u2019\u201a\u201b\u2032",
        '"': "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb",
        "-": "\u2010\u2011\u2012\u2013\u2014\u2015\u2212",
        " ": "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000",
        "": "\u200b\u200c\u200d\u2060\ufeff",
        "...": "\u2026",
    }
    table = {ord(char): ascii_ for ascii_, chars in groups.items() for char in chars}
    table.update({code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)})  # full width
    return table


LOOKALIKES = _lookalike_table()
# "--" is typeset as one dash as often as "-" is: with look-alikes folded, a run of hyphens is
# one hyphen, so that an em dash matches either.
_HYPHENS = re.compile(r"-{2,}")


@dataclass(frozen=True)
class Rule:
    """One tolerant rule: the normalisations lines go through before they are compared."""

    name: str  # what the result says: "matched after normalising <name>"
    indentation: bool = False  # compare lines without the block's common indentation
    units: bool = False  # and count it in levels (tabs for spaces, 2 spaces a level for 4)
    lookalikes: bool = False  # fold curly quotes, dashes, odd spaces to ASCII
    blank_lines: bool = False  # skip blank lines on both sides


# In the order they are tried; each normalises what the ones before it did, and one thing more.
# All of them ignore line endings and trailing whitespace.
LINE_RULES = (
    Rule("trailing whitespace"),
    Rule("indentation", indentation=True),
    Rule("tabs and spaces", indentation=True, units=True),
    Rule("look-alike characters", indentation=True, units=True, lookalikes=True),
    Rule("blank lines", indentation=True, units=True, lookalikes=True, blank_lines=True),
)


@dataclass(frozen=True)
class Key:
    """A line as a rule compares it: its indentation, and the rest."""

    indent: str
    body: str

    @property
    def blank(self) -> bool:
        return not self.body


def key(line: str, rule: Rule) -> Key:
    """`line` as `rule` compares it (its "\r" and trailing whitespace gone)."""
    text = line
    if rule.lookalikes:
        if not text.isascii():
            text = text.translate(LOOKALIKES)
        if "--" in text:
            text = _HYPHENS.sub("-", text)
    text = text.rstrip(TRAILING)
    body = text.lstrip(SPACES)
    return Key(text[: len(text) - len(body)], body)


def keys(lines: list[str], rule: Rule) -> list[Key]:
    """The lines as `rule` compares them (the same for rules that fold the same characters)."""
    return [key(line, rule) for line in lines]


@dataclass(frozen=True)
class Found:
    """Where a block of old lines is in the file: file lines [start, end), which old line is
    which file line (`pairs`, in order), and each side's common indentation."""

    start: int
    end: int
    pairs: tuple[tuple[int, int], ...]  # (old line, file line)
    old_indent: str
    file_indent: str
    old_unit: str | None = None  # the quote's indentation unit, when the match proved it


def find_blocks(
    file_keys: list[Key], old_keys: list[Key], rule: Rule, unit: str | None = None
) -> list[Found]:
    """Every place (overlapping ones too) where the old lines are among the file's under
    `rule`, given both as `keys` made for it (`unit`: the file's indentation unit)."""
    seen = [i for i, k in enumerate(file_keys) if not (rule.blank_lines and k.blank)]
    wanted = [i for i, k in enumerate(old_keys) if not (rule.blank_lines and k.blank)]
    if not any(not old_keys[i].blank for i in wanted):
        return []
    size, first = len(wanted), old_keys[wanted[0]].body
    found: list[Found] = []
    last = len(seen) - size
    for at in [at for at, f in enumerate(seen) if file_keys[f].body == first and at <= last]:
        window = seen[at : at + size]
        if all(_same(file_keys[f], old_keys[o], rule) for o, f in zip(wanted, window, strict=True)):
            pairs = list(zip(wanted, window, strict=True))
            place = placed(file_keys, old_keys, pairs, rule, unit)
            if place is not None:
                found.append(place)
    return found


def _same(file_key: Key, old_key: Key, rule: Rule) -> bool:
    """Whether two lines are equal under `rule` (the indentation rule checks indentation once
    it knows the block's)."""
    return file_key.body == old_key.body if rule.indentation else file_key == old_key


def placed(
    file_keys: list[Key],
    old_keys: list[Key],
    pairs: list[tuple[int, int]],
    rule: Rule,
    unit: str | None = None,
) -> Found | None:
    """The match these pairs make, if the lines' indentation agrees once each side's common
    indentation is taken away (with `rule.units`, counted in levels of each side's unit)."""
    old_indent = common_indent([old_keys[o].indent for o, _ in pairs if not old_keys[o].blank])
    file_indent = common_indent([file_keys[f].indent for _, f in pairs if not file_keys[f].blank])
    old_unit = None
    if rule.indentation:
        relative = [
            (old_keys[o].indent[len(old_indent) :], file_keys[f].indent[len(file_indent) :])
            for o, f in pairs
            if not old_keys[o].blank
        ]
        if any(old != there for old, there in relative):
            old_unit = proven_unit(relative, unit) if rule.units and unit else None
            if old_unit is None:
                return None
    else:
        old_indent = file_indent
    if rule.blank_lines:
        pairs = _with_blank_pairs(file_keys, old_keys, pairs)
    return Found(pairs[0][1], pairs[-1][1] + 1, tuple(pairs), old_indent, file_indent, old_unit)


def common_indent(indents: list[str]) -> str:
    """The longest indentation all of `indents` start with (the first and the last in sort
    order share it with every one between)."""
    if not indents:
        return ""
    low, high = min(indents), max(indents)
    size = 0
    while size < len(low) and low[size] == high[size]:
        size += 1
    return low[:size]


def _with_blank_pairs(
    file_keys: list[Key], old_keys: list[Key], pairs: list[tuple[int, int]]
) -> list[tuple[int, int]]:
    """`pairs` (of lines that are not blank) with the blank lines between two of them paired
    too, in order, as far as both sides have them: so that a blank line the model deletes is
    deleted when the file has it."""
    out = [pairs[0]]
    for (o1, f1), (o2, f2) in itertools.pairwise(pairs):
        old_blank = [o for o in range(o1 + 1, o2) if old_keys[o].blank]
        file_blank = [f for f in range(f1 + 1, f2) if file_keys[f].blank]
        out += zip(old_blank, file_blank, strict=False)
        out.append((o2, f2))
    return out


def needed(lines: list[str], old: list[str], found: Found) -> list[str]:
    """Which normalisations this match needed, for the result to name ("trailing whitespace",
    "indentation"...): the rule that found it may normalise more than the match needed."""
    names: list[str] = []
    pairs = found.pairs
    if any(_trailing(lines[f]) != _trailing(old[o]) for o, f in pairs):
        names.append("trailing whitespace")
    quote_tabs = any("\t" in _indent_of(old[o]) for o, _ in pairs)
    file_tabs = any("\t" in _indent_of(lines[f]) for _, f in pairs)
    if quote_tabs != file_tabs:
        names.append("tabs and spaces")
    elif found.old_indent != found.file_indent or found.old_unit is not None:
        names.append("indentation")
    plain = Rule("plain", indentation=True)
    if any(key(lines[f], plain).body != key(old[o], plain).body for o, f in pairs):
        names.append("look-alike characters")
    paired = {f for _, f in pairs}
    if len(pairs) != len(old) or len(paired) != found.end - found.start:
        names.append("blank lines")
    return names


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(SPACES))]


def _trailing(line: str) -> str:
    line = line.removesuffix("\r")
    return line[len(line.rstrip(TRAILING)) :]
