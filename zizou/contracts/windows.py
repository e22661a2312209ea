"""Windows: the part of a file a workspace entry shows, and how it finds its lines again.

A window is a regex (from the start to the end of its match) or a start and an end, each a line
number, a text or a regex (an omitted start or end is the start or end of the file; the end is
searched from the end of the start's match). Every window snaps to whole lines, numbered from 1,
inclusive, so what the model is shown is exactly what `replace_window` replaces.

Text and regex anchors are found again at every render, preferring the occurrence nearest where
the window was last seen (`hint`), so an edit that adds an earlier occurrence does not make the
window jump. Line windows follow zizou's own edits through `map_lines`; after a change made
outside zizou they relocate by the text of their first and last lines (`relocate`). Regexes run
with a time limit: a pattern that backtracks without end is an error, not a hung step.
"""

from __future__ import annotations

import bisect
import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # `regex` (for its timeouts) loads with the first window found, not at start
    import regex

REGEX_TIMEOUT_S = 0.2  # for all of one window's searches together
MAX_CANDIDATES = 1_000  # matches looked at per anchor; more is reported as "many"
MAX_PATTERN_CHARS = 2_000
MAX_TEXT_CHARS = 2_000


class WindowError(ValueError):
    """A window that cannot be used as given; the message says why and what to send instead."""


@dataclass(frozen=True)
class Anchor:
    """One end of a window: a 1-based line number, a text, or a regex."""

    line: int | None = None
    text: str | None = None
    regex: str | None = None

    def describe(self) -> str:
        if self.line is not None:
            return str(self.line)
        if self.text is not None:
            return repr(self.text)
        return f"/{self.regex}/"

    def to_dict(self) -> dict[str, Any]:
        return {
            k: v
            for k, v in (("line", self.line), ("text", self.text), ("regex", self.regex))
            if v is not None
        }


@dataclass(frozen=True)
class WindowSpec:
    """What a window names. `regex` excludes `start` and `end`; all None: the whole file."""

    regex: str | None = None
    start: Anchor | None = None
    end: Anchor | None = None

    @property
    def is_whole(self) -> bool:
        return self.regex is None and self.start is None and self.end is None

    @property
    def by_lines(self) -> bool:
        """True when both ends are line numbers (or file ends): it follows edits by mapping."""
        return self.regex is None and all(
            a is None or a.line is not None for a in (self.start, self.end)
        )

    def describe(self) -> str:
        """The spec in a person's words, for headers and listings."""
        if self.regex is not None:
            return f"/{self.regex}/"
        if self.is_whole:
            return "whole file"
        if self.by_lines:
            first = self.start.line if self.start else 1
            last = self.end.line if self.end else "end"
            return f"lines {first}-{last}"
        start = self.start.describe() if self.start else "start"
        end = self.end.describe() if self.end else "end"
        return f"{start} .. {end}"

    def to_dict(self) -> dict[str, Any]:
        """The nested form, which `parse_spec` reads back (session files keep this)."""
        out: dict[str, Any] = {}
        if self.regex is not None:
            out["regex"] = self.regex
        if self.start is not None:
            out["start"] = self.start.to_dict()
        if self.end is not None:
            out["end"] = self.end.to_dict()
        return out


WHOLE_FILE = WindowSpec()

_FLAT_KEYS = ("regex", "start_line", "start", "start_regex", "end_line", "end", "end_regex")


def parse_spec(data: dict[str, Any] | None) -> WindowSpec:
    """A WindowSpec from the model's flat fields (`start_line`, `start`, `start_regex`, ...) or
    the nested form (`{"start": {"regex": ...}}`); WindowError says what is wrong."""
    if not data:
        return WHOLE_FILE
    unknown = set(data) - set(_FLAT_KEYS)
    if unknown:
        raise WindowError(
            f"unknown window field(s) {', '.join(sorted(unknown))}; a window has "
            f"{', '.join(_FLAT_KEYS)}"
        )
    start = _anchor(data, "start")
    end = _anchor(data, "end")
    pattern = data.get("regex")
    if pattern is not None:
        if start is not None or end is not None:
            raise WindowError(
                "a window is either `regex` alone, or a start and an end (start_line, start, "
                "start_regex, end_line, end, end_regex); not both"
            )
        compile_pattern(_text_field(pattern, "regex"))
        return WindowSpec(regex=pattern)
    if start and start.line and end and end.line and end.line < start.line:
        raise WindowError(f"end_line {end.line} is before start_line {start.line}")
    return WindowSpec(start=start, end=end)


def _anchor(data: dict[str, Any], side: str) -> Anchor | None:
    nested = data.get(side)
    if isinstance(nested, dict):
        others = [k for k in (f"{side}_line", f"{side}_regex") if data.get(k) is not None]
        if others:
            raise WindowError(f"give `{side}` either nested or as {others[0]}, not both")
        extra = set(nested) - {"line", "text", "regex"}
        if extra:
            raise WindowError(f"unknown field(s) in `{side}`: {', '.join(sorted(extra))}")
        line, text, pattern = nested.get("line"), nested.get("text"), nested.get("regex")
    else:
        line, text, pattern = data.get(f"{side}_line"), nested, data.get(f"{side}_regex")
    given = [
        name
        for name, value in (("line", line), ("text", text), ("regex", pattern))
        if value is not None
    ]
    if not given:
        return None
    if len(given) > 1:
        raise WindowError(
            f"the window's {side} is given as {' and '.join(given)}; give exactly one of "
            f"{side}_line, {side} (a text) or {side}_regex"
        )
    if line is not None:
        if isinstance(line, bool) or not isinstance(line, int) or line < 1:
            raise WindowError(f"{side}_line must be a line number, 1 or more (got {line!r})")
        return Anchor(line=line)
    if text is not None:
        text = _text_field(text, side)
        if "\n" in text.strip("\n"):
            raise WindowError(f"`{side}` is a text within one line; use {side}_regex for more")
        return Anchor(text=text.strip("\n"))
    compile_pattern(_text_field(pattern, f"{side}_regex"))
    return Anchor(regex=pattern)


def _text_field(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise WindowError(f"`{name}` must be a non-empty string")
    limit = MAX_PATTERN_CHARS if "regex" in name else MAX_TEXT_CHARS
    if len(value) > limit:
        raise WindowError(f"`{name}` is too long ({len(value):,} characters; at most {limit:,})")
    return value


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """The compiled regex (MULTILINE: `^` and `$` match at lines), or a WindowError naming the
    position of the mistake."""
    import regex

    try:
        return _compiled(pattern)
    except regex.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise WindowError(f"the regex {pattern!r} does not compile{where}: {exc.msg}") from None


_CACHE: dict[str, regex.Pattern[str]] = {}


def _compiled(pattern: str) -> regex.Pattern[str]:
    import regex

    found = _CACHE.get(pattern)
    if found is None:
        if len(_CACHE) > 512:
            _CACHE.clear()
        found = _CACHE[pattern] = regex.compile(pattern, regex.MULTILINE | regex.VERSION0)
    return found


def parse_cli_spec(text: str) -> tuple[str, WindowSpec]:
    """`PATH`, `PATH:10-40`, `PATH:10-` or `PATH:10`, `PATH#/regex/`: the forms `/add` and
    `--open` take. Returns the path and the spec."""
    if "#/" in text and text.endswith("/"):
        path, _, rest = text.partition("#/")
        pattern = rest[:-1]
        if not path or not pattern:
            raise WindowError(f"{text!r}: write PATH#/REGEX/")
        compile_pattern(pattern)
        return path, WindowSpec(regex=pattern)
    path, sep, lines = text.rpartition(":")
    if sep and path and _is_line_range(lines):
        first, _, last = lines.partition("-")
        start = int(first) if first else 1
        end = int(last) if last else (None if "-" in lines else start)
        if start < 1 or (end is not None and end < start):
            raise WindowError(f"{text!r}: the lines must be 1 or more, first before last")
        return path, WindowSpec(
            start=Anchor(line=start), end=Anchor(line=end) if end is not None else None
        )
    return text, WHOLE_FILE


def _is_line_range(text: str) -> bool:
    first, _, last = text.partition("-")
    return (
        bool(text)
        and (first.isdigit() or not first)
        and (last.isdigit() or not last)
        and (first.isdigit() or last.isdigit())
    )


@dataclass(frozen=True)
class Found:
    """Where a window resolved: 1-based inclusive lines. `candidates` > 1 means the anchor
    matched in several places and the one nearest the hint was taken."""

    start: int
    end: int
    candidates: int = 1


@dataclass(frozen=True)
class Lost:
    """The window's anchor matched nowhere (or its lines are gone)."""

    reason: str


Resolution = Found | Lost


class _Text:
    """A file's text with line offsets, for turning match offsets into line numbers."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.text = "\n".join(lines)
        self.offsets: list[int] = []
        at = 0
        for line in lines:
            self.offsets.append(at)
            at += len(line) + 1

    def line_of(self, offset: int) -> int:
        """The 1-based line holding character `offset`."""
        return max(1, bisect.bisect_right(self.offsets, offset))

    def line_start(self, line: int) -> int:
        return self.offsets[line - 1] if 0 < line <= len(self.offsets) else len(self.text)


def resolve(
    spec: WindowSpec, lines: list[str], hint: int | None = None, first_text: str | None = None
) -> Resolution:
    """Where `spec` is in a file of `lines` (LF-split, no newlines), nearest `hint` (a 1-based
    line where the window was last seen); a match whose first line is still `first_text` (the
    window's first line then) wins over a nearer one, so a copy of the anchor added nearer does
    not take the window. Raises WindowError when a regex runs out of time."""
    total = len(lines)
    if total == 0:
        return Found(1, 0) if spec.is_whole else Lost("the file is empty")
    deadline = time.monotonic() + REGEX_TIMEOUT_S
    doc = _Text(lines)
    if spec.regex is not None:
        spans = _regex_spans(doc, spec.regex, 0, deadline)
        if not spans:
            return Lost(f"/{spec.regex}/ matches nothing")
        first, last, _ = min(spans, key=_closeness(doc, hint, first_text))
        return Found(first, last, len(spans))
    start, start_end_offset, candidates = 1, 0, 1
    if spec.start is not None:
        found = _start(doc, spec.start, _closeness(doc, hint, first_text), deadline)
        if isinstance(found, Lost):
            return found
        start, start_end_offset, candidates = found
    end = total
    if spec.end is not None:
        if spec.end.line is not None:
            end = min(spec.end.line, total)
            if end < start:
                return Lost(f"the end, line {spec.end.line}, is before the start, line {start}")
        else:
            from_offset = start_end_offset if spec.start is not None else 0
            spans = _anchor_spans(doc, spec.end, from_offset, deadline, first_only=True)
            if not spans:
                return Lost(f"the end {spec.end.describe()} is not found after line {start}")
            end = spans[0][1]
    return Found(start, end, candidates)


def _start(
    doc: _Text, anchor: Anchor, closeness: _Key, deadline: float
) -> tuple[int, int, int] | Lost:
    """The start line, the offset where the end is searched from, and the candidate count."""
    if anchor.line is not None:
        if anchor.line > len(doc.lines):
            return Lost(f"line {anchor.line} is past the end of the file ({len(doc.lines)} lines)")
        return anchor.line, doc.line_start(anchor.line), 1
    spans = _anchor_spans(doc, anchor, 0, deadline)
    if not spans:
        return Lost(f"the start {anchor.describe()} matches nothing")
    best = min(spans, key=closeness)
    return best[0], best[2], len(spans)


def _anchor_spans(
    doc: _Text, anchor: Anchor, from_offset: int, deadline: float, first_only: bool = False
) -> list[tuple[int, int, int]]:
    """(first line, last line, end offset) of each match of a text or regex anchor."""
    if anchor.regex is not None:
        return _regex_spans(doc, anchor.regex, from_offset, deadline, first_only)
    assert anchor.text is not None
    spans: list[tuple[int, int, int]] = []
    at = doc.text.find(anchor.text, from_offset)
    while at != -1 and len(spans) < MAX_CANDIDATES:
        stop = at + len(anchor.text)
        spans.append((doc.line_of(at), doc.line_of(stop - 1), stop))
        if first_only:
            break
        at = doc.text.find(anchor.text, stop)
    return spans


def _regex_spans(
    doc: _Text, pattern: str, from_offset: int, deadline: float, first_only: bool = False
) -> list[tuple[int, int, int]]:
    compiled = compile_pattern(pattern)
    spans: list[tuple[int, int, int]] = []
    try:
        left = max(0.001, deadline - time.monotonic())
        for match in compiled.finditer(doc.text, from_offset, timeout=left):
            begin, stop = match.span()
            last = doc.line_of(max(begin, stop - 1))  # a final newline is its line's end
            spans.append((doc.line_of(begin), last, stop))
            if first_only or len(spans) >= MAX_CANDIDATES:
                break
    except TimeoutError:
        raise WindowError(
            f"the regex /{pattern}/ took longer than {REGEX_TIMEOUT_S:g} s on this file and was "
            "stopped; use a simpler pattern (avoid nested repeats such as (a+)+)"
        ) from None
    return spans


_Key = Callable[[tuple[int, int, int]], tuple[int, int, int]]


def _closeness(doc: _Text, hint: int | None, first_text: str | None) -> _Key:
    """How to rank candidate spans: the window's own first line first, then nearest the hint,
    then earliest."""

    def key(span: tuple[int, int, int]) -> tuple[int, int, int]:
        line = span[0]
        own = 0 if first_text is not None and doc.lines[line - 1] == first_text else 1
        return own, abs(line - hint) if hint is not None else 0, line

    return key


Opcode = tuple[str, int, int, int, int]
MAX_DIFF_LINES = 20_000  # a changed middle longer than this is taken as one replaced block


def line_opcodes(before: list[str], after: list[str]) -> list[Opcode]:
    """How `before` became `after`, as difflib opcodes over whole lines, in bounded time: the
    common head and tail are matched line by line, and only the changed middle is diffed (with
    difflib's junk heuristic, which keeps files of many blank or `}` lines fast)."""
    head = 0
    limit = min(len(before), len(after))
    while head < limit and before[head] == after[head]:
        head += 1
    tail = 0
    while tail < limit - head and before[len(before) - 1 - tail] == after[len(after) - 1 - tail]:
        tail += 1
    old, new = before[head : len(before) - tail], after[head : len(after) - tail]
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    if len(old) + len(new) > MAX_DIFF_LINES:
        middle: list[Opcode] = [("replace", 0, len(old), 0, len(new))]
    else:
        middle = list(difflib.SequenceMatcher(None, old, new).get_opcodes())
    ops += [
        (tag, i1 + head, i2 + head, j1 + head, j2 + head)
        for tag, i1, i2, j1, j2 in middle
        if i1 != i2 or j1 != j2
    ]
    if tail:
        ops.append(("equal", len(before) - tail, len(before), len(after) - tail, len(after)))
    return ops


def map_lines(start: int, end: int, before: list[str], after: list[str]) -> tuple[int, int] | None:
    """Where lines `start`-`end` of `before` are in `after`, after an edit: shifted by what was
    inserted or removed above them, grown or shrunk by what changed inside them, unchanged by
    what changed below. None when every one of the lines was removed."""
    if before == after:
        return start, end
    return map_through(start, end, line_opcodes(before, after))


def map_through(start: int, end: int, opcodes: list[Opcode]) -> tuple[int, int] | None:
    """`map_lines` with the edit's opcodes computed once (for every window on a file)."""
    first = _map_one(start - 1, opcodes, "start")
    last = _map_one(end - 1, opcodes, "end")
    if first is None or last is None or last < first:
        return None
    return first + 1, last + 1


def _map_one(index: int, opcodes: list[Opcode], side: Literal["start", "end"]) -> int | None:
    """The 0-based line in the new text for old line `index`."""
    for tag, i1, i2, j1, j2 in opcodes:
        if not i1 <= index < i2:
            continue
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            return j1 + (index - i1)  # a block rewritten line for line keeps its positions
        if j2 == j1:  # deleted: the window's end moves up, its start down, to what is left
            return j1 if side == "start" else j1 - 1
        return j1 if side == "start" else j2 - 1
    return None


def relocate(
    first_text: str, last_text: str, size: int, lines: list[str], hint: int
) -> tuple[int, int] | None:
    """Where a window whose first and last lines were `first_text` and `last_text` (and which
    was `size` lines long) is now, after a change made outside zizou; None if not found."""
    starts = [n for n, line in enumerate(lines, 1) if line == first_text]
    if not starts:
        return None
    best: tuple[int, int] | None = None
    best_key: tuple[int, int, int] | None = None
    for start in sorted(starts, key=lambda n: abs(n - hint))[:50]:
        for end in range(start, len(lines) + 1):
            if lines[end - 1] == last_text and (
                end > start or size == 1 or first_text == last_text
            ):
                key = (abs((end - start + 1) - size), abs(start - hint), start)
                if best_key is None or key < best_key:
                    best, best_key = (start, end), key
                break
    return best


def changed_lines(old: list[str], new: list[str], new_first: int) -> list[int]:
    """The lines of `new` (numbered from `new_first`) that differ from `old` (what the model
    saw at its last step), for the header's "changed since"."""
    changed: list[int] = []
    for tag, _i1, _i2, j1, j2 in line_opcodes(old, new):
        if tag in ("replace", "insert"):
            changed.extend(range(new_first + j1, new_first + j2))
    return changed


def ranges(numbers: list[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9"."""
    out: list[str] = []
    for number in sorted(set(numbers)):
        if out and number == int(out[-1].split("-")[-1]) + 1:
            out[-1] = f"{out[-1].split('-')[0]}-{number}"
        else:
            out.append(str(number))
    return ", ".join(out)


__all__ = [
    "WHOLE_FILE",
    "Anchor",
    "Found",
    "Lost",
    "Resolution",
    "WindowError",
    "WindowSpec",
    "changed_lines",
    "compile_pattern",
    "map_lines",
    "parse_cli_spec",
    "parse_spec",
    "ranges",
    "relocate",
    "resolve",
]
