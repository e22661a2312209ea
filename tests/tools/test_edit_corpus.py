"""The edit engine on a corpus of real files (tests/data/edit_corpus): edits cut from them and
quoted the ways models misquote code, checked byte for byte.

Each case is an exact edit (a block of 2-8 lines; one line replaced, inserted or deleted)
whose old_string and new_string are then sent as a model would send them after misreading the
block in one way, or several: line endings, trailing whitespace, indentation, look-alike
characters, blank lines. Lines the model leaves unchanged in new_string carry the same
misreading; the line it writes is its own. The expected file is the exact edit applied to the
original. Ambiguous cases (the block doubled in the file) and absent ones (a line of it changed)
must be refused, leaving the file as it was. The cases come from a seeded random generator, so
the run is the same every time; bench/edits.py measures the same corpus.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from zizou.tools._edits import Edit, EditFailed, apply_edits
from zizou.tools.base import ToolContext
from zizou.tools.edit_file import TOOL as EDIT
from zizou.tools.edit_file import EditFileArgs
from zizou.tools.read_file import TOOL as READ
from zizou.tools.read_file import ReadFileArgs

CORPUS = Path(__file__).resolve().parents[1] / "data" / "edit_corpus"
FILES = (
    "windows.py.txt",
    "confined_resolve.py.txt",
    "redact.py.txt",
    "event_renderer.py.txt",
    "textwrap.py.txt",
    "shlex_crlf.py.txt",
    "Makefile.txt",
    "pyparsing_pep8_names.py.txt",
)
SEED = 16
COUNTS = {
    "exact": 15,
    "line endings": 25,
    "trailing whitespace": 30,
    "indentation": 30,
    "look-alikes": 30,
    "blank lines": 30,
    "composed": 40,
    "ambiguous": 25,
    "absent": 25,
}
COMPOSED = (
    ("indentation", "trailing whitespace"),
    ("indentation", "look-alikes"),
    ("blank lines", "trailing whitespace"),
    ("line endings", "indentation"),
    ("indentation", "look-alikes", "blank lines"),
    ("trailing whitespace", "look-alikes"),
)
UNRECOVERABLE = ("ambiguous", "absent")
CONTEXT = 2  # lines either side of a doubled block that are doubled with it
_QUOTES = {"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
_LOOSE = str.maketrans({**_QUOTES, "\u2013": "-", "\u2014": "-", "\xa0": " "})


@dataclass(frozen=True)
class Case:
    name: str
    kind: str
    source: str
    text: str  # the file before the edit
    old: str
    new: str
    expected: str | None  # the file after it; None when the edit must be refused


@dataclass(frozen=True)
class Seen:
    """A line as the model quotes it, and which line of the block it is (None: it imagined
    a blank line that is not there)."""

    text: str
    of: int | None


@dataclass(frozen=True)
class Source:
    name: str
    text: str
    lines: list[str]  # without line endings
    newline: str


def load() -> list[Source]:
    sources = []
    for name in FILES:
        text = (CORPUS / name).read_bytes().decode("utf-8")
        newline = "\r\n" if "\r\n" in text else "\n"
        lines = text.replace("\r\n", "\n").split("\n")
        sources.append(Source(name, text, lines[:-1] if lines[-1] == "" else lines, newline))
    return sources


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _loose(lines: list[str]) -> list[str]:
    folded = ["".join(line.translate(_LOOSE).replace("\u2026", "...").split()) for line in lines]
    return [line for line in folded if line]


def _count(haystack: list[str], needle: list[str]) -> int:
    size = len(needle)
    return sum(haystack[i : i + size] == needle for i in range(len(haystack) - size + 1))


def pick_block(rng: random.Random, src: Source, margin: int = 0) -> tuple[int, int]:
    """A block of 2-8 lines, at least two of them not blank, that is the only one like it in
    the file even with all whitespace and look-alikes ignored (and `margin` lines from either
    end of the file)."""
    whole = _loose(src.lines)
    while True:
        size = rng.randint(2, 8)
        start = rng.randrange(margin, len(src.lines) - size + 1 - margin)
        block = src.lines[start : start + size]
        if len(_loose(block)) >= 2 and _count(whole, _loose(block)) == 1:
            return start, size


# How a model misreads a block: each takes the lines as seen so far and returns them misread.


def _line_endings(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    return seen  # applied to the whole text when it is sent (see `_sent`)


def _trailing(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    out = list(seen)
    for k in rng.sample(range(len(out)), rng.randint(1, len(out))):
        text = out[k].text
        stripped = text.rstrip(" \t")
        misread = stripped if stripped != text else text + rng.choice(("  ", " ", "\t"))
        out[k] = Seen(misread, out[k].of)
    return out


def _indentation(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    common = _common([s.text for s in seen if s.text.strip()])
    choices = ["", common + "    "] + ([common[4:]] if common.startswith("    ") else [])
    to = rng.choice([c for c in choices if c != common])
    return [replace(s, text=to + s.text[len(common) :]) if s.text.strip() else s for s in seen]


def _common(lines: list[str]) -> str:
    indents = [_indent(line) for line in lines]
    first = min(indents, key=len)
    while not all(i.startswith(first) for i in indents):
        first = first[:-1]
    return first


_SMART = (
    ("'", "\u2019"),
    ('"', "\u201c"),
    (" - ", " \u2013 "),
    ("--", "\u2014"),
    ("...", "\u2026"),
    ("\u2026", "..."),
)


def _lookalikes(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    out = list(seen)
    spots = [(k, a, b) for k, s in enumerate(out) for a, b in _SMART if a in s.text]
    if not spots:  # a no-break space for a space between two words
        spots = [(k, " ", "\xa0") for k, s in enumerate(out) if " " in s.text.strip()]
    for k, a, b in rng.sample(spots, min(len(spots), rng.randint(1, 3))):
        text = out[k].text
        body = text.lstrip(" \t")
        out[k] = Seen(_indent(text) + body.replace(a, b, 1 if b == "\xa0" else -1), out[k].of)
    return out


def _blank_lines(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    """A blank line inside the block lost, or one or two added inside it or at an end."""
    inner = [k for k in range(1, len(seen) - 1) if not seen[k].text.strip()]
    if inner and rng.random() < 0.4:
        return seen[: inner[0]] + seen[inner[0] + 1 :]
    at = rng.choice([0, len(seen), *range(1, len(seen)), *range(1, len(seen))])
    added = [Seen("", None)] * rng.choice((1, 1, 2))
    return [*seen[:at], *added, *seen[at:]]


MISREADINGS: dict[str, Callable[[random.Random, list[Seen]], list[Seen]]] = {
    "line endings": _line_endings,
    "trailing whitespace": _trailing,
    "indentation": _indentation,
    "look-alikes": _lookalikes,
    "blank lines": _blank_lines,
}


def make_case(rng: random.Random, number: int, kind: str, src: Source) -> Case:
    start, size = pick_block(rng, src, CONTEXT if kind == "ambiguous" else 0)
    block = src.lines[start : start + size]
    ways = _ways(rng, kind)
    seen = [Seen(line, k) for k, line in enumerate(block)]
    for way in ways:
        seen = MISREADINGS[way](rng, seen)
    if kind == "absent":
        seen = _changed_line(rng, seen)
    fresh = f"edited_{number} = {number}"
    seen_new, file_new = _edit(rng, seen, block, fresh)
    final = rng.random() < 0.5 and (start + size < len(src.lines) or src.text.endswith("\n"))
    old, new = _sent(seen, seen_new, final, src, ways)
    text = _doubled(src, start, size) if kind == "ambiguous" else src.text
    expected = None if kind in UNRECOVERABLE else _spliced(src, start, size, file_new)
    name = f"{kind}-{number:03d} {src.name}:{start + 1}-{start + size} {'+'.join(ways)}"
    return Case(name, kind, src.name, text, old, new, expected)


def _ways(rng: random.Random, kind: str) -> tuple[str, ...]:
    if kind == "composed":
        return rng.choice(COMPOSED)
    if kind in UNRECOVERABLE:
        return rng.choice([(), *[(way,) for way in MISREADINGS], *COMPOSED])
    return () if kind == "exact" else (kind,)


def _edit(
    rng: random.Random, seen: list[Seen], block: list[str], fresh: str
) -> tuple[list[str], list[str]]:
    """One line replaced, inserted before another, or deleted, or two lines replaced: as the
    model writes it (in its reading of the block), and as it lands in the file."""
    real = [k for k, s in enumerate(seen) if s.of is not None and block[s.of].strip()]
    k = rng.choice(real)
    j = seen[k].of
    assert j is not None
    model, file = [s.text for s in seen], list(block)
    what = rng.choice(("replace", "insert", "delete", "replace two"))
    if what == "insert" and (k == 0 or not block[j - 1].strip() or not seen[k - 1].text.strip()):
        what = "replace"  # before a blank line, either side of it would be right: not a case
    if what == "replace two" and (k + 1 not in real):
        what = "replace"
    if what == "delete":
        del model[k], file[j]
        return model, file
    if what == "replace two":
        j2 = seen[k + 1].of
        assert j2 is not None
        model[k + 1] = _indent(seen[k + 1].text) + fresh + "_b"
        file[j2] = _indent(block[j2]) + fresh + "_b"
    cut = 0 if what == "insert" else 1
    model[k : k + cut] = [_indent(seen[k].text) + fresh]
    file[j : j + cut] = [_indent(block[j]) + fresh]
    return model, file


def _changed_line(rng: random.Random, seen: list[Seen]) -> list[Seen]:
    k = rng.choice([k for k, s in enumerate(seen) if s.text.strip()])
    text = seen[k].text
    body = text.lstrip(" \t")
    out = list(seen)
    cut = len(text) - len(body) + 1  # after the first character of the code
    out[k] = Seen(text[:cut] + "zq_" + text[cut:], None)
    return out


def _sent(
    seen: list[Seen], seen_new: list[str], final: bool, src: Source, ways: tuple[str, ...]
) -> tuple[str, str]:
    end = "\n" if final else ""
    old, new = "\n".join(s.text for s in seen) + end, "\n".join(seen_new) + end
    newline = src.newline
    if "line endings" in ways:
        newline = "\n" if src.newline == "\r\n" else "\r\n"
    return old.replace("\n", newline), new.replace("\n", newline)


def _spliced(src: Source, start: int, size: int, lines: list[str]) -> str:
    pieces = src.text.split(src.newline)  # the last piece is "" when the file ends with one
    return src.newline.join(pieces[:start] + lines + pieces[start + size :])


def _doubled(src: Source, start: int, size: int) -> str:
    """The file with the block written twice, each copy between the same CONTEXT lines, so
    that blank lines the model adds or drops at its ends cannot tell the copies apart."""
    pieces = src.text.split(src.newline)
    end = start + size + CONTEXT
    return src.newline.join(pieces[:end] + pieces[start - CONTEXT : end] + pieces[end:])


def build_corpus(seed: int = SEED) -> list[Case]:
    rng = random.Random(seed)
    sources = load()
    cases: list[Case] = []
    for kind, count in COUNTS.items():
        for _ in range(count):
            src = rng.choice(sources)
            if kind == "line endings" and rng.random() < 0.6:
                src = next(s for s in sources if s.newline == "\r\n")
            case = make_case(rng, len(cases), kind, src)
            if kind == "absent" and _absent_somewhere(case):
                continue
            cases.append(case)
    return cases


def _absent_somewhere(case: Case) -> bool:
    """Whether a changed line happens to exist elsewhere, making the block not absent."""
    wanted = _loose(case.old.replace("\r\n", "\n").split("\n"))
    return _count(_loose(case.text.replace("\r\n", "\n").split("\n")), wanted) > 0


def outcome(case: Case) -> str:
    """One of "landed", "refused" or "wrong" (changed the file, not into what was expected)."""
    try:
        text, _ = apply_edits(case.text, [Edit(case.old, case.new)], "corpus")
    except EditFailed:
        return "refused"
    return "landed" if text == case.expected else "wrong"


@pytest.fixture(scope="module")
def corpus() -> list[Case]:
    return build_corpus()


def test_the_corpus_is_large_and_varied(corpus: list[Case]) -> None:
    cases = corpus
    assert len(cases) >= 200
    assert {c.kind for c in cases} == set(COUNTS)
    assert {c.source for c in cases} == set(FILES)
    assert b"\r\n" in (CORPUS / "shlex_crlf.py.txt").read_bytes()  # not turned to LF by git
    assert build_corpus() == cases  # deterministic


def test_every_recoverable_edit_lands_and_none_goes_wrong(corpus: list[Case]) -> None:
    results: dict[str, dict[str, list[str]]] = {}
    for case in corpus:
        got = outcome(case)
        if case.expected is None and got == "refused":
            got = "landed"  # refusing is right for these
        results.setdefault(case.kind, {}).setdefault(got, []).append(case.name)
    wrong = [name for by in results.values() for name in by.get("wrong", [])]
    assert wrong == [], wrong
    recoverable = [by for kind, by in results.items() if kind not in UNRECOVERABLE]
    landed = sum(len(by.get("landed", [])) for by in recoverable)
    total = sum(len(names) for by in recoverable for names in by.values())
    refused = {kind: by["refused"] for kind, by in results.items() if "refused" in by}
    assert landed >= 0.98 * total, refused


def test_unrecoverable_edits_are_refused_with_the_reason(corpus: list[Case]) -> None:
    for case in corpus:
        if case.expected is not None:
            continue
        try:
            apply_edits(case.text, [Edit(case.old, case.new)], "corpus")
        except EditFailed as failed:
            reason = failed.reason
        else:
            raise AssertionError(f"{case.name} was applied")
        if case.kind == "ambiguous":
            assert re.search(r"occurs 2 times|matches 2 places", reason), (case.name, reason)
        else:
            assert "not found" in reason, (case.name, reason)


async def test_through_the_tool_the_file_is_right_byte_for_byte(
    root: Path, corpus: list[Case]
) -> None:
    """Every tenth case through edit_file itself, on a file on disk: read, edit, compare bytes."""
    for case in corpus[::10]:
        ctx = ToolContext(root=root)
        path = root / "case.txt"
        path.write_bytes(case.text.encode("utf-8"))
        assert (await READ.run(ReadFileArgs(path="case.txt"), ctx)).ok
        args = EditFileArgs(path="case.txt", old_string=case.old, new_string=case.new)
        result = await EDIT.run(args, ctx)
        expected = case.text if case.expected is None else case.expected
        assert result.ok == (case.expected is not None), (case.name, result.output)
        assert path.read_bytes() == expected.encode("utf-8"), case.name
