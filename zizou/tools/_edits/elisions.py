"""Edits whose old_string leaves lines out: a line that is only an elision marker (`...`,
`# ...`, `// ... existing code ...`, in the file's comment syntax) stands for the run of file
lines between the quoted lines around it.

Models shorten long quotes so. The quoted pieces are found by the line rules, in order, each
within MAX_ELIDED lines of the one before; the edit lands only when exactly one chain of places
does (else it is refused, naming the places). The same marker in new_string keeps the elided
lines exactly as they are, where it stands; a new_string without it is refused (dropping lines
the model never quoted is never guessed).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from pathlib import PurePosixPath

from zizou.tools._edits.blocks import MAX_LISTED, Blocks, File, span_of, whole_lines
from zizou.tools._edits.edit import Edit, Refused, in_words
from zizou.tools._edits.rules import LINE_RULES, Found, Key, Rule, find_blocks, keys, needed, placed
from zizou.tools._edits.units import file_unit
from zizou.tools._edits.written import writer_for

MAX_ELIDED = 200  # lines one marker may stand for
_DOTS = r"(?:\.{3,}|\u2026)"
_WORDS = r"[A-Za-z][\w ,'()/-]{0,60}?"
_BODY = rf"(?:{_DOTS}(?:\s*{_WORDS})?(?:\s*{_DOTS})?|{_WORDS}\s*{_DOTS})"
_CLOSERS = r"(?:\s*(?:\*/|-->|\*/\}))?"
_HASH = ("#",)
_SLASH = ("//", "/*")
_OPENERS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("py", "pyi", "sh", "bash", "zsh", "rb", "pl", "r", "yaml", "yml"), _HASH),
    **dict.fromkeys(("toml", "cfg", "conf", "mk", "cmake", "jl", "ex", "exs", "nim"), _HASH),
    **dict.fromkeys(("js", "mjs", "cjs", "ts", "c", "h", "cc", "cpp", "hpp", "cxx"), _SLASH),
    **dict.fromkeys(("java", "kt", "kts", "go", "rs", "swift", "cs", "scala", "dart"), _SLASH),
    **dict.fromkeys(("jsx", "tsx"), (*_SLASH, "{/*")),
    "php": ("#", *_SLASH),
    "css": ("/*",),
    **dict.fromkeys(("scss", "less", "groovy", "zig", "proto"), _SLASH),
    **dict.fromkeys(("sql", "lua", "hs", "elm"), ("--",)),
    **dict.fromkeys(("lisp", "clj", "el", "scm", "ini", "asm"), (";",)),
    **dict.fromkeys(("html", "htm", "xml", "md", "svg", "vue"), ("<!--",)),
}
_ANY = ("#", "//", "/*", "--", ";", "<!--", "{/*")


def marker_pattern(rel: str) -> re.Pattern[str]:
    """What an elision line looks like in `rel` (stripped): bare dots, or dots in a comment
    of its language (any comment syntax for a kind of file not listed)."""
    name = PurePosixPath(rel).name
    suffix = "mk" if name in ("Makefile", "makefile") else name.rpartition(".")[2].lower()
    openers = _OPENERS.get(suffix, _ANY)
    opener = "|".join(re.escape(o) for o in openers)
    return re.compile(rf"(?:(?:{opener})\s*)?{_BODY}{_CLOSERS}|{_DOTS}")


def elided_edit(text: str, edit: Edit, rel: str, newline: str) -> Blocks | None:
    """The edit made with old_string's elision markers standing for the lines between its
    quoted pieces; None when old_string has no marker, or its pieces are not found in order."""
    pattern = marker_pattern(rel)
    old, new = whole_lines(edit.old, edit.new)
    marks = [k for k, line in enumerate(old) if pattern.fullmatch(line.strip())]
    if not marks:
        return None
    pieces = _pieces(old, marks)
    kept = [k for k, line in enumerate(new) if pattern.fullmatch(line.strip())]
    if len(kept) != len(marks):
        raise Refused(
            f"old_string leaves lines out ({_said(old, marks)}), and new_string has "
            f"{len(kept)} such line{'s' * (len(kept) != 1)} for its {len(marks)}: put the "
            "same marker in new_string where those lines stay; to remove or change lines, "
            "quote them"
        )
    file = File.of(text, newline)
    unit = file_unit(file.lines)
    for rule in LINE_RULES:
        file_keys, old_keys = keys(file.lines, rule), keys(old, rule)
        places = [_found_piece(file_keys, old_keys, piece, rule, unit) for piece in pieces]
        if not all(places):
            continue
        chains = [c for c in _chains(places) if _joint(file_keys, old_keys, c, rule, unit)]
        if not chains:
            continue
        if len(chains) > 1 or edit.replace_all:
            where = ", ".join(f"lines {c[0].start + 1}-{c[-1].end}" for c in chains[:MAX_LISTED])
            raise Refused(
                f"old_string leaves lines out ({_said(old, marks)}), and the lines around "
                f"that match {len(chains)} places in {rel} ({where}); quote more lines so "
                "they match one place"
            )
        return _made(file, old, new, marks, kept, chains[0], rule, unit)
    return None


def _pieces(old: list[str], marks: list[int]) -> list[range]:
    """The quoted pieces of old_string, between its markers (each must have lines)."""
    bounds = [-1, *marks, len(old)]
    pieces = [range(a + 1, b) for a, b in itertools.pairwise(bounds)]
    if any(not any(old[k].strip() for k in piece) for piece in pieces):
        raise Refused(
            "an elision marker in old_string must have quoted lines on both sides of it, so "
            "that the lines it stands for are bounded; quote the first and last lines too"
        )
    return pieces


def _found_piece(
    file_keys: list[Key], old_keys: list[Key], piece: range, rule: Rule, unit: str | None
) -> list[Found]:
    """Where a piece is, its pairs given as lines of the whole old_string."""
    found = find_blocks(file_keys, old_keys[piece.start : piece.stop], rule, unit)
    moved = [tuple((o + piece.start, f) for o, f in place.pairs) for place in found]
    return [dataclasses.replace(p, pairs=m) for p, m in zip(found, moved, strict=True)]


def _chains(places: list[list[Found]]) -> list[list[Found]]:
    """Each choice of one place per piece, in order, each within MAX_ELIDED lines after the
    one before (at most MAX_LISTED + 1 of them)."""
    chains: list[list[Found]] = []

    def extend(chain: list[Found]) -> None:
        if len(chains) > MAX_LISTED:
            return
        if len(chain) == len(places):
            chains.append(chain)
            return
        last = chain[-1]
        for place in places[len(chain)]:
            if last.end <= place.start <= last.end + MAX_ELIDED:
                extend([*chain, place])

    for first in places[0]:
        extend([first])
    return chains


def _joint(
    file_keys: list[Key], old_keys: list[Key], chain: list[Found], rule: Rule, unit: str | None
) -> Found | None:
    """The chain as one match, if its pieces agree on the indentation."""
    pairs = [pair for place in chain for pair in place.pairs if not old_keys[pair[0]].blank]
    return placed(file_keys, old_keys, pairs, dataclasses.replace(rule, blank_lines=False), unit)


def _made(
    file: File,
    old: list[str],
    new: list[str],
    marks: list[int],
    kept: list[int],
    chain: list[Found],
    rule: Rule,
    unit: str | None,
) -> Blocks:
    joint = _joint(keys(file.lines, rule), keys(old, rule), chain, rule, unit)
    assert joint is not None
    pairs = tuple(pair for place in chain for pair in place.pairs)
    found = dataclasses.replace(joint, start=chain[0].start, end=chain[-1].end, pairs=pairs)
    elided = {mark: (chain[k].end, chain[k + 1].start) for k, mark in enumerate(marks)}
    old, new = list(old), list(new)
    for k, (o, n) in enumerate(zip(marks, kept, strict=True)):
        old[o] = new[n] = f"\x00elided {k}"  # the same line on both sides: kept
    writer = writer_for(file.lines, found, old, new, unit)
    span = span_of(file, found, old, new, writer, elided)
    names: list[str] = []
    for place in chain:
        piece = [o for o, _ in place.pairs]
        shifted = dataclasses.replace(place, pairs=tuple((o - piece[0], f) for o, f in place.pairs))
        part = needed(file.lines, old[piece[0] : piece[-1] + 1], shifted)
        names += [name for name in part if name not in names]
    runs = [f"{a + 1}-{b}" if b > a + 1 else str(b) for a, b in elided.values() if b > a]
    said = (
        f"lines {in_words(tuple(runs))} kept as they are for old_string's elision"
        if runs
        else "old_string's elision stood for no lines"
    )
    return Blocks([span], tuple(names), (said, *writer.notes()))


def _said(old: list[str], marks: list[int]) -> str:
    """old_string's marker lines, in words."""
    shown = ", ".join(f"line {k + 1}: {old[k].strip()!r}" for k in marks[:3])
    return f"elision marker{'s' * (len(marks) > 1)} at {shown}"
