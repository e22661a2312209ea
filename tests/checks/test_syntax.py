"""The syntax delta: only the problems a change brought, wherever the lines moved, and the same
answer from the incremental parse as from a whole one."""

from __future__ import annotations

import pytest

from zizou.checks.report import Finding
from zizou.checks.syntax import SyntaxChecker, changed_span, moved_line, problems_of
from zizou.checks.syntax import _parser as parser

PY = b"def area(w, h):\n    return w * h\n\n\ndef main():\n    print(area(2, 3))\n"


def test_a_broken_line_is_one_new_problem_at_its_line() -> None:
    after = PY.replace(b"return w * h", b"return (w * h")
    [found] = SyntaxChecker().new_problems("a.py", PY, after)
    assert found.line == 2 and found.message.startswith("cannot parse")


def test_a_stray_token_is_unexpected_with_its_column() -> None:
    before = b"function f() {\n  return 1;\n}\n"
    after = before + b"}\n"
    assert SyntaxChecker().new_problems("a.js", before, after) == [Finding(4, 1, 'unexpected "}"')]


def test_a_missing_node_is_named() -> None:
    found = SyntaxChecker().new_problems("a.py", b"def f(x):\n    pass\n", b"def f(:\n    pass\n")
    assert found == [Finding(1, 7, 'missing ")"')]


def test_an_old_problem_that_moved_is_not_new() -> None:
    before = b"x = 1\n\ndef later(:\n    pass\n"
    after = b"import os\nimport sys\nx = 1\n\ndef later(:\n    pass\n"  # two lines above it
    assert SyntaxChecker().new_problems("a.py", before, after) == []


def test_a_new_problem_beside_an_old_one_is_the_only_one_reported() -> None:
    before = b"a = 1\n\ndef later(:\n    pass\n"
    after = b"a = (1\nb = 2\n\ndef later(:\n    pass\n"
    found = SyntaxChecker().new_problems("a.py", before, after)
    assert found and all(f.line < 4 for f in found)


def test_fixing_a_problem_reports_nothing() -> None:
    before = b"def later(:\n    pass\n"
    assert SyntaxChecker().new_problems("a.py", before, b"def later():\n    pass\n") == []


@pytest.mark.parametrize("name", ["notes.txt", "Makefile", "data.csv"])
def test_files_without_a_grammar_or_an_exact_parser_are_not_checked(name: str) -> None:
    assert SyntaxChecker().new_problems(name, b"x", b"((((") == []


def test_a_new_file_reports_all_its_problems() -> None:
    assert len(SyntaxChecker().new_problems("new.py", None, b"def f(:\n")) >= 1


def test_edits_in_a_row_give_what_whole_parses_give() -> None:
    """The kept tree, edited and re-parsed incrementally, finds what a fresh parse finds."""
    checker = SyntaxChecker()
    text = PY * 30
    checker.remember("big.py", text)
    steps = [
        (b"return w * h", b"return w * h +"),
        (b"print(area(2, 3))", b"print(area(2, 3)"),
        (b"return w * h +", b"return w * h"),
        (b"def main():", b"def main(:"),
    ]
    for old, new in steps:
        after = text.replace(old, new, 1)
        incremental = checker.new_problems("big.py", text, after)
        whole = SyntaxChecker().new_problems("big.py", text, after)
        assert incremental == whole
        text = after
    assert problems_of(parser("python").parse(text), text)


def test_the_changed_span_and_how_lines_move() -> None:
    before = b"a\nb\nc\nd\n"
    after = b"a\nB1\nB2\nc\nd\n"
    span = changed_span(before, after)
    assert (span.start, span.old_end, span.new_end) == (2, 3, 7)
    assert [moved_line(n, span, before, after) for n in (1, 2, 3, 4)] == [1, None, 4, 5]
    same = changed_span(b"abc", b"abc")
    assert (same.start, same.old_end, same.new_end) == (3, 3, 3)
