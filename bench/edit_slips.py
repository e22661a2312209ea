"""Edits whose slips the engine must undo in what it writes, built from real files of a project
other than the edit corpus's: the `click` package installed beside zizou, read at run time.

Each case is an exact edit (one line of a 3-8 line block replaced, or a line inserted, the new
line holding a string) that the model sends after misreading the block one way, in old_string
and new_string alike: straight quotes typeset curly, tabs for the file's spaces, spaces for a
tab-indented file's tabs (the file tabified first), two spaces a level for four; or with an
elision (`# ... existing code ...`) for the middle of a longer block. The expected file is the
exact edit. Two classes must be refused: an elision whose neighbours match twice, and nothing
else lands there. A case "meant" keeps a curly quote the model writes inside a string literal.
"""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MUST_REFUSE = ("elision, ambiguous",)
MARKER = "# ... existing code ..."


@dataclass(frozen=True)
class SlipCase:
    kind: str
    text: str
    old: str
    new: str
    expected: str | None  # None: the edit must be refused


def source_files() -> list[tuple[str, list[str]]]:
    """The larger modules of the installed `click`, as lines."""
    spec = importlib.util.find_spec("click")
    if spec is None or spec.origin is None:
        raise SystemExit("the slip classes need the click package installed")
    found = []
    for path in sorted(Path(spec.origin).parent.glob("*.py")):
        lines = path.read_text(encoding="utf-8").split("\n")
        if len(lines) > 300 and "\t" not in "".join(lines):
            found.append((path.name, lines[:-1] if lines[-1] == "" else lines))
    return found


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _loose(lines: list[str]) -> list[str]:
    return [folded for line in lines if (folded := "".join(line.split()))]


def _unique(lines: list[str], block: list[str]) -> bool:
    whole, wanted = _loose(lines), _loose(block)
    size = len(wanted)
    return (
        len(wanted) >= 2
        and sum(whole[i : i + size] == wanted for i in range(len(whole) - size + 1)) == 1
    )


def _pick(rng: random.Random, lines: list[str], want: Callable[[list[str]], bool]) -> int:
    for _ in range(10_000):
        size = rng.randint(3, 8)
        start = rng.randrange(0, len(lines) - size)
        block = lines[start : start + size]
        if _unique(lines, block) and want(block):
            return start
    raise RuntimeError("no block found")


def _smart(line: str) -> str:
    out, opening = [], True
    for char in line:
        if char == '"':
            out.append("\u201c" if opening else "\u201d")
            opening = not opening
        else:
            out.append("\u2019" if char == "'" else char)
    return "".join(out)


def _tabbed(line: str) -> str:
    indent = _indent(line)
    if "\t" in indent:
        return line
    return "\t" * (len(indent) // 4) + " " * (len(indent) % 4) + line[len(indent) :]


def _two_spaces(line: str) -> str:
    indent = _indent(line)
    return " " * (len(indent) // 4 * 2 + len(indent) % 4) + line[len(indent) :]


def _edited(rng: random.Random, block: list[str], number: int) -> tuple[list[str], int, str]:
    """The block after the exact edit, where the new line is, and what it says."""
    k = rng.choice([k for k, line in enumerate(block) if line.strip()])
    line = f'{_indent(block[k])}edited_{number} = "value {number}"'
    if rng.random() < 0.5 and k > 0 and block[k - 1].strip():
        return [*block[:k], line, *block[k:]], k, line
    return [*block[:k], line, *block[k + 1 :]], k, line


def _case(
    rng: random.Random,
    kind: str,
    lines: list[str],
    number: int,
    view: Callable[[str], str],
    want: Callable[[list[str]], bool] = lambda block: True,
) -> SlipCase:
    """An edit of `lines` sent as the model sees them through `view`."""
    start = _pick(rng, lines, want)
    size = next(s for s in range(8, 2, -1) if _unique(lines, lines[start : start + s]))
    block = lines[start : start + size]
    after, _, _ = _edited(rng, block, number)
    old = "\n".join(view(line) for line in block) + "\n"
    new = "\n".join(view(line) for line in after) + "\n"
    expected = "\n".join(lines[:start] + after + lines[start + size :]) + "\n"
    return SlipCase(kind, "\n".join(lines) + "\n", old, new, expected)


def _meant(rng: random.Random, lines: list[str], number: int) -> SlipCase:
    """Curly quotes as slips, and one the model means inside a straight-quoted literal."""
    case = _case(rng, "curly text meant", lines, number, _smart, lambda b: '"' in "".join(b))
    smart_new = _smart(f'edited_{number} = "value {number}"')
    meant = f'edited_{number} = "\u201cvalue\u201d {number}"'
    expected = case.expected or ""
    return SlipCase(
        case.kind,
        case.text,
        case.old,
        case.new.replace(smart_new, meant),
        expected.replace(f'edited_{number} = "value {number}"', meant),
    )


def _elision(rng: random.Random, lines: list[str], number: int, doubled: bool) -> SlipCase:
    """The middle of an 8-14 line block elided; `doubled`: its tail copied just after it."""
    for _ in range(10_000):
        size = rng.randint(8, 14)
        start = rng.randrange(0, len(lines) - size)
        block = lines[start : start + size]
        head, tail = block[:2], block[-2:]
        if len(_loose(head)) == 2 and len(_loose(tail)) == 2 and _unique(lines, block):
            break
    text_lines = list(lines)
    if doubled:
        text_lines[start + size : start + size] = tail
    indent = _indent(min((line for line in block[2:-2] if line.strip()), key=len, default=""))
    tail_after = [*tail[:-1], f'{_indent(tail[-1])}edited_{number} = "value {number}"']
    old = "\n".join([*head, indent + MARKER, *tail]) + "\n"
    new = "\n".join([*head, indent + MARKER, *tail_after]) + "\n"
    text = "\n".join(text_lines) + "\n"
    if doubled:
        return SlipCase("elision, ambiguous", text, old, new, None)
    chains = _chains(text_lines, head, tail)
    after = text_lines[:start] + block[:-2] + tail_after + text_lines[start + size :]
    return SlipCase("elision", text, old, new, "\n".join(after) + "\n" if chains == 1 else None)


def _chains(lines: list[str], head: list[str], tail: list[str]) -> int:
    """How many (head, tail) places there are, the tail within 200 lines after the head."""
    strip = [line.rstrip() for line in lines]
    heads = [i for i in range(len(lines)) if strip[i : i + 2] == [s.rstrip() for s in head]]
    tails = [i for i in range(len(lines)) if strip[i : i + 2] == [s.rstrip() for s in tail]]
    return sum(1 for h in heads for t in tails if h + 2 <= t <= h + 2 + 200)


def build_slip_cases(seed: int, per_kind: int = 30) -> list[SlipCase]:
    rng = random.Random(seed)
    sources = source_files()
    cases: list[SlipCase] = []
    for number in range(per_kind):
        _, lines = rng.choice(sources)
        tabbed = [_tabbed(line) for line in lines]
        quoted = _case(rng, "curly quotes", lines, number, _smart, lambda b: '"' in "".join(b))
        nested = lambda b: len({_indent(x) for x in b if x.strip()}) > 1  # noqa: E731
        cases += [
            quoted,
            _meant(rng, lines, number),
            _case(rng, "tabs in a spaced file", lines, number, _tabbed, nested),
            _spaces_into_tabs(rng, lines, tabbed, number),
            _case(rng, "two spaces a level", lines, number, _two_spaces, nested),
            _elision(rng, lines, number, doubled=False),
            _elision(rng, lines, number, doubled=True),
        ]
    return cases


def _spaces_into_tabs(
    rng: random.Random, lines: list[str], tabbed: list[str], number: int
) -> SlipCase:
    """The file tabified; the model quotes it with spaces (as it was before)."""
    nested = lambda b: len({_indent(x) for x in b if x.strip()}) > 1  # noqa: E731
    case = _case(rng, "spaces in a tabbed file", tabbed, number, _spaced, nested)
    return case


def _spaced(line: str) -> str:
    indent = _indent(line)
    return indent.replace("\t", "    ") + line[len(indent) :]
