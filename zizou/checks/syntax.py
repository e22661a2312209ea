"""The syntax problems a change brought into a file: tree-sitter's ERROR and MISSING nodes in
the new content that were not in the old.

The grammars are the repo map's (`zizou.repomap.tags.LANGUAGES`). A problem is new unless the
old content had one with the same message on the line it moved to: the change is one span of
bytes (the common head and tail of the two contents stay), so a line before the span keeps its
number, a line after it moves by the lines the change added or removed, and an old problem
inside the span is gone with it.

Parsing a 5,000-line file takes tens of milliseconds; an edit should not. So the tree of the
content each file was last seen with is kept (a few files), and the new content is parsed
incrementally from it: tree-sitter re-reads only around the changed span. A read of the file
(`remember`) makes its tree; without one, the new content is parsed whole, and the old one
(incrementally, from the new tree) only when the new content has problems to compare.

Python files (and JSON, TOML) are also given to their exact parser (`exact`), which rejects
what a grammar forgives; its first error is new on the same terms.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from zizou.checks.exact import exact_problem
from zizou.checks.report import Finding as Problem
from zizou.repomap.tags import LANGUAGES, language_for

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

MAX_BYTES = 2_000_000  # larger files are not checked
KEPT_TREES = 8
MAX_NODES = 200_000  # a file this broken is not walked further


@dataclass(frozen=True)
class Span:
    """The bytes a change replaced: `[start, old_end)` of the old content became `[start,
    new_end)` of the new one."""

    start: int
    old_end: int
    new_end: int


@dataclass
class _Seen:
    data: bytes
    tree: Tree
    problems: tuple[Problem, ...]


class SyntaxChecker:
    """Finds the syntax problems a change brought, keeping the latest tree of a few files.
    Safe to call from worker threads (one at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: OrderedDict[str, _Seen] = OrderedDict()

    def remember(self, rel: str, data: bytes) -> None:
        """Parse `data`, the content `rel` has now, so that a change to it is checked fast."""
        language = language_for(rel)
        if language is None or len(data) > MAX_BYTES:
            return
        with self._lock:
            if self._known(rel, data) is None:
                self._keep(rel, _parsed(language, data, None))

    def new_problems(self, rel: str, before: bytes | None, after: bytes) -> list[Problem]:
        """The problems of `after` that `before` (None: a new file) did not have: the
        grammar's, or when it found none the exact parser's (which says the first only)."""
        found = self._tree_problems(rel, before, after)
        if found or len(after) > MAX_BYTES:
            return found
        return new_exact_problems(rel, before, after)

    def _tree_problems(self, rel: str, before: bytes | None, after: bytes) -> list[Problem]:
        language = language_for(rel)
        if language is None or len(after) > MAX_BYTES:
            return []
        old_data = before if before is not None and len(before) <= MAX_BYTES else b""
        span = changed_span(old_data, after)
        with self._lock:
            old = self._known(rel, old_data) if old_data else None
            new = _parsed(language, after, _edited(old, span, old_data, after))
            self._keep(rel, new)
            if not new.problems:
                return []
            if old is None and old_data:  # parsed only now: from the new tree, told backwards
                back = Span(span.start, span.new_end, span.old_end)
                old = _parsed(language, old_data, _edited(new, back, after, old_data))
        earlier = old.problems if old is not None else ()
        kept = {(moved_line(p.line, span, old_data, after), p.message) for p in earlier}
        return [p for p in new.problems if (p.line, p.message) not in kept]

    def _known(self, rel: str, data: bytes) -> _Seen | None:
        seen = self._seen.get(rel)
        if seen is None or seen.data != data:
            return None
        self._seen.move_to_end(rel)
        return seen

    def _keep(self, rel: str, seen: _Seen) -> None:
        self._seen[rel] = seen
        self._seen.move_to_end(rel)
        while len(self._seen) > KEPT_TREES:
            self._seen.popitem(last=False)


def new_exact_problems(rel: str, before: bytes | None, after: bytes) -> list[Problem]:
    """The exact parser's error in `after`, unless `before` had the same one where it moved."""
    problem = exact_problem(rel, after)
    if problem is None:
        return []
    earlier = exact_problem(rel, before) if before is not None else None
    if earlier is not None and earlier.message == problem.message:
        span = changed_span(before or b"", after)
        if moved_line(earlier.line, span, before or b"", after) == problem.line:
            return []
    return [problem]


def breaks(rel: str, before: bytes, after: bytes) -> Problem | None:
    """The first problem of `after` when `before` parses and it does not (by the exact parser
    and the grammar); None otherwise. Both are parsed whole: this is for a write about to be
    refused, not for every change."""
    if len(after) > MAX_BYTES or len(before) > MAX_BYTES:
        return None
    if exact_problem(rel, before) is not None:
        return None
    problem = exact_problem(rel, after)
    if problem is not None:
        return problem
    language = language_for(rel)
    if language is None:
        return None
    old = _parsed(language, before, None)
    if old.problems:
        return None
    new = _parsed(language, after, None)
    return new.problems[0] if new.problems else None


def what_breaks(rel: str, before: bytes, after: bytes) -> str | None:
    """`breaks` in words ("line 3, column 11: IndentationError: ..."), for a refused write."""
    problem = breaks(rel, before, after)
    if problem is None:
        return None
    where = f"line {problem.line}" + (f", column {problem.column}" if problem.column else "")
    return f"{where}: {problem.message}"


def changed_span(before: bytes, after: bytes) -> Span:
    """The one span of bytes that differs: after the common head, before the common tail."""
    head = _common_head(before, after)
    tail = _common_tail(before[head:], after[head:])
    return Span(head, len(before) - tail, len(after) - tail)


def problems_of(tree: Tree, data: bytes) -> tuple[Problem, ...]:
    """Each ERROR node (not those inside another) and each MISSING node, in order."""
    found: list[Problem] = []
    stack = [tree.root_node]
    visited = 0
    while stack and visited < MAX_NODES:
        node = stack.pop()
        visited += 1
        if node.is_missing:
            found.append(_problem(node, data, f'missing "{node.type}"'))
        elif node.is_error:
            found.append(_problem(node, data, _unexpected(node)))
        elif node.has_error:
            stack.extend(reversed(node.children))
    return tuple(found)


def _parsed(language: str, data: bytes, old: Tree | None) -> _Seen:
    tree = _parser(language).parse(data, old) if old is not None else _parser(language).parse(data)
    problems = problems_of(tree, data) if tree.root_node.has_error else ()
    return _Seen(data, tree, problems)


def _edited(old: _Seen | None, span: Span, before: bytes, after: bytes) -> Tree | None:
    """The tree of `before` told of the change to `after` (a copy: the kept one stays as it
    was), or None."""
    if old is None:
        return None
    tree = old.tree.copy()
    tree.edit(
        start_byte=span.start,
        old_end_byte=span.old_end,
        new_end_byte=span.new_end,
        start_point=_point(before, span.start),
        old_end_point=_point(before, span.old_end),
        new_end_point=_point(after, span.new_end),
    )
    return tree


def moved_line(line: int, span: Span, before: bytes, after: bytes) -> int | None:
    """Where line `line` of `before` is in `after`: moved by the lines the change added or
    removed when it comes after the change, None when the change replaced it."""
    first = before.count(b"\n", 0, span.start) + 1  # the line the change starts on
    last = before.count(b"\n", 0, span.old_end) + 1
    if line < first:
        return line
    if line > last:
        return line + after.count(b"\n", 0, span.new_end) + 1 - last
    return None


def _problem(node: Node, data: bytes, message: str) -> Problem:
    row, byte_column = node.start_point
    line_start = node.start_byte - byte_column
    column = len(data[line_start : node.start_byte].decode("utf-8", "replace")) + 1
    return Problem(row + 1, column, message)


def _unexpected(node: Node) -> str:
    """What an ERROR node holds: `unexpected "}"` for one token, else `cannot parse "..."` with
    the first line of what it spans (tree-sitter cannot say which token was wrong)."""
    text = (node.text or b"").decode("utf-8", "replace")
    first = text.split("\n", 1)[0].strip()
    shown = first[:40] + ("…" if len(first) > 40 or "\n" in text.strip() else "")
    if not first:
        return "cannot parse this"
    if node.child_count <= 1 and "\n" not in text.strip():
        return f'unexpected "{shown}"'
    return f'cannot parse "{shown}"'


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def _common_head(a: bytes, b: bytes) -> int:
    """How many bytes `a` and `b` share from the start (memcmp halves, not a Python loop)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_tail(a: bytes, b: bytes) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


_parsers = threading.local()


def _parser(language: str) -> Parser:
    """A parser of this thread's own (a parser is not to be shared between threads)."""
    cached: dict[str, Parser] = _parsers.__dict__.setdefault("by_language", {})
    parser = cached.get(language)
    if parser is None:
        from tree_sitter_language_pack import get_parser

        parser = cached[language] = get_parser(cast(Any, LANGUAGES[language].grammar))
    return parser


__all__ = [
    "Problem",
    "Span",
    "SyntaxChecker",
    "breaks",
    "changed_span",
    "moved_line",
    "new_exact_problems",
    "problems_of",
    "what_breaks",
]
