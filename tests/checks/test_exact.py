"""The exact parsers after a change (zizou/checks/exact.py, through SyntaxChecker): what
tree-sitter's grammar forgives, Python's compiler reports, with its line; once, not again when
the file already had it; and `breaks`, which the refusal of a breaking write asks."""

from __future__ import annotations

from zizou.checks.exact import exact_problem
from zizou.checks.report import Finding
from zizou.checks.syntax import SyntaxChecker, breaks

PY = b"def area(w, h):\n    return w * h\n\n\ndef main():\n    print(area(2, 3))\n"
UNINDENT = PY.replace(b"    print(", b"  print(").replace(
    b"def main():\n", b"def main():\n    x = 1\n"
)


def test_an_indentation_error_the_grammar_forgives_is_reported_at_its_line() -> None:
    [found] = SyntaxChecker().new_problems("a.py", PY, UNINDENT)
    assert found.line == 7
    assert found.message == (
        "IndentationError: unindent does not match any outer indentation level (Python's compiler)"
    )


def test_tabs_mixed_with_spaces_are_a_tab_error() -> None:
    after = PY.replace(b"    print(", b"\tprint(").replace(
        b"def main():\n", b"def main():\n    x = 1\n"
    )
    [found] = SyntaxChecker().new_problems("a.py", PY, after)
    assert found.line == 7 and found.message.startswith("TabError: inconsistent use of tabs")


def test_an_error_the_file_already_had_where_it_moved_is_not_new() -> None:
    after = b"import os\n" + UNINDENT
    assert SyntaxChecker().new_problems("a.py", UNINDENT, after) == []


def test_a_new_file_that_does_not_compile_is_reported() -> None:
    [found] = SyntaxChecker().new_problems("new.py", None, b"if x:\npass\n")
    assert found.message.startswith("IndentationError: expected an indented block")


def test_json_and_toml_are_checked_by_the_standard_library() -> None:
    assert exact_problem("a.json", b'{"a": 1,}') == Finding(
        1, 9, "Expecting property name enclosed in double quotes (JSON parser)"
    )
    assert exact_problem("a.toml", b"a = 1\nb = \n") == Finding(2, 5, "Invalid value (TOML parser)")
    assert exact_problem("a.txt", b"anything") is None


def test_a_syntax_warning_is_not_a_problem() -> None:
    assert exact_problem("a.py", b'pattern = "\\d+"\n') is None


def test_breaks_only_when_the_file_parsed_before() -> None:
    assert breaks("a.py", PY, UNINDENT) is not None
    assert breaks("a.py", UNINDENT, UNINDENT + b"y = (\n") is None  # it did not compile
    assert breaks("a.js", b"let a = 1;\n", b"let a = (1;\n") is not None
    assert breaks("a.py", PY, PY + b"x = 1\n") is None
