"""Undoing in new_string the look-alike slips that old_string's match proved.

A model that typesets `"` as `“` in old_string does it in new_string too; the match folds the
look-alikes to find the lines, and the lines the model writes must not carry them into the file
(`return {“a”: 2}` is not Python). The match proves, character by character, what each
look-alike of old_string stood for in the file (`Proof`). A look-alike in a written line is then:

- where the model kept a character of the old line it replaces (aligned with it): what that
  character stood for in the file, the file's own character;
- new text: a proven slip outside a string literal is corrected the same way; inside a literal
  opened by an ASCII quote it is text the model means (a curly quote in a message), and stays;
- a look-alike the model never slipped with stays as written.

Where the two cannot be told apart (the character stood both for itself and for an ASCII one,
or for several different ones, or sits in a literal left open at the end of the line), the edit
is refused with the reason.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from zizou.tools._edits.edit import Refused
from zizou.tools._edits.rules import LOOKALIKES

UNCLEAR = "\x00"  # a look-alike whose counterpart in the file the alignment could not tell
QUOTES = "\"'`"
SAME_LINE = 0.6  # how alike a written line and the old one it replaces are to be lined up


def _fold(text: str) -> str:
    return text.translate(LOOKALIKES)


def _alike(char: str, there: str) -> bool:
    """Whether the file's `there` is what the look-alike `char` folds to (a dash may stand for
    a run of hyphens)."""
    folded = _fold(char)
    return there == folded or (folded == "-" and there != "" and set(there) == {"-"})


@dataclass
class Proof:
    """What the match proved: for each old line, what each look-alike in it stood for in the
    file (the file's text; the character itself when the file has it too)."""

    marks: dict[int, dict[int, str]] = field(default_factory=dict)  # old line -> pos -> file's
    stood_for: dict[str, set[str]] = field(default_factory=dict)  # look-alike -> file's texts

    def slipped(self, char: str) -> bool:
        return any(text != char for text in self.stood_for.get(char, ()))


def proof_of(pairs: list[tuple[int, str, str]]) -> Proof:
    """The proof made by the matched lines: (old line index, old line, file line)."""
    proof = Proof()
    for index, old, there in pairs:
        if old.isascii():
            continue
        marks = _marks(old, there)
        if marks:
            proof.marks[index] = marks
            for at, text in marks.items():
                proof.stood_for.setdefault(old[at], set()).add(text)
    return proof


def _marks(old: str, there: str) -> dict[int, str]:
    """For each look-alike of `old`, the text of `there` it stands for."""
    marks: dict[int, str] = {}
    matcher = difflib.SequenceMatcher(None, old, there, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for at in range(i1, i2):
            char = old[at]
            if ord(char) not in LOOKALIKES:
                continue
            if tag == "equal":
                marks[at] = char
            elif tag == "delete":
                marks[at] = "" if _fold(char) == "" else UNCLEAR
            elif i2 - i1 == j2 - j1 and _alike(char, there[j1 + at - i1]):
                marks[at] = there[j1 + at - i1]
            elif i2 - i1 == 1 and _alike(char, there[j1:j2]):
                marks[at] = there[j1:j2]
            else:
                marks[at] = UNCLEAR
    return marks


@dataclass
class Corrected:
    """A written line with the slips undone, and what was written instead of what."""

    text: str
    wrote: dict[str, str] = field(default_factory=dict)  # look-alike -> what was written


def undo_slips(line: str, old_index: int | None, old_line: str | None, proof: Proof) -> Corrected:
    """`line`, written by the model in place of old line `old_index` (None: a line it added),
    with the look-alikes the match proved to be slips written as the file has them."""
    if line.isascii() or not any(proof.slipped(char) for char in set(line)):
        return Corrected(line)
    decided = _aligned(line, old_index, old_line, proof)
    out: list[str] = []
    wrote: dict[str, str] = {}
    opened = ""  # the ASCII quote of the literal the scan is in
    by_slip = False  # whether that quote was a corrected slip (so a slip may close it)
    kept_inside: list[str] = []
    at = 0
    while at < len(line):
        char = line[at]
        text = decided.get(at)
        if text is None and proof.slipped(char):
            text = _new_text(char, opened if not by_slip else "", proof, kept_inside)
        shown = char if text is None else text
        if shown != char:
            wrote[char] = shown
        out.append(shown)
        if opened and shown == "\\":
            out.append(line[at + 1 : at + 2])
            at += 2
            continue
        if shown in QUOTES and (not opened or shown == opened):
            opened, by_slip = ("", False) if opened else (shown, shown != char)
        at += 1
    if opened and kept_inside:
        raise Refused(
            f"new_string writes {kept_inside[0]} in a string left open at the end of its line "
            f"({line.strip()!r}), and old_string's {kept_inside[0]} stood for the file's "
            f"{_listed(proof.stood_for[kept_inside[0]])}: it cannot be told whether it is text "
            "or a slip; write that line with the characters you mean, as the file has them"
        )
    return Corrected("".join(out), wrote)


def _aligned(
    line: str, old_index: int | None, old_line: str | None, proof: Proof
) -> dict[int, str]:
    """What the characters of `line` kept from the old line it replaces stood for."""
    marks = proof.marks.get(old_index, {}) if old_index is not None else {}
    if not marks or old_line is None:
        return {}
    decided: dict[int, str] = {}
    matcher = difflib.SequenceMatcher(None, old_line, line, autojunk=False)
    if matcher.ratio() < SAME_LINE:  # a line written anew, not the old one changed
        return {}
    for i, j, size in matcher.get_matching_blocks():
        for k in range(size):
            text = marks.get(i + k)
            if text is not None:
                decided[j + k] = _known(line[j + k], text, proof)
    return decided


def _new_text(char: str, opened: str, proof: Proof, kept_inside: list[str]) -> str | None:
    """What a look-alike the model added is written as: None (as it is) inside a literal the
    model opened with an ASCII quote (`opened`); else the one thing it stood for in the match."""
    texts = proof.stood_for[char]
    if opened:
        kept_inside.append(char)
        return None
    if len(texts) > 1:
        raise Refused(
            f"new_string adds {char}, which in old_string stood for the file's {_listed(texts)}: "
            "it cannot be told which one is meant; write it as the file has it"
        )
    return _known(char, next(iter(texts)), proof)


def _known(char: str, text: str, proof: Proof) -> str:
    if text == UNCLEAR:
        raise Refused(
            f"old_string's {char} could not be lined up with the file's text, so what new_string's "
            f"{char} should be cannot be told; write it as the file has it"
        )
    return text


def _listed(texts: set[str]) -> str:
    return " and ".join(sorted(repr(t) for t in texts))


NAMES = {'"': "straight quotes", "'": "straight quotes", "-": "hyphens", "...": "three dots"}


def described(wrote: dict[str, str]) -> str:
    """What the corrections wrote, in words: "wrote straight quotes and hyphens as the file
    has them"."""
    names: list[str] = []
    for text in wrote.values():
        name = NAMES.get(text) or ("hyphens" if set(text) == {"-"} else None)
        if name is None:
            name = (
                "plain spaces"
                if text == " "
                else "no zero-width characters"
                if not text
                else ("ASCII characters")
            )
        if name not in names:
            names.append(name)
    said = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"wrote {said} as the file has them"
