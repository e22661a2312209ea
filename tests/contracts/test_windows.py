"""Windows: parsing the model's and the CLI's forms, finding them in a file, and following edits."""

from __future__ import annotations

import pytest

from zizou.contracts import windows
from zizou.contracts.windows import (
    WHOLE_FILE,
    Anchor,
    Found,
    Lost,
    WindowError,
    WindowSpec,
    changed_lines,
    map_lines,
    parse_cli_spec,
    parse_spec,
    ranges,
    relocate,
    resolve,
)

CODE = [
    "import os",  # 1
    "",  # 2
    "",  # 3
    "def helper(x):",  # 4
    "    return x + 1",  # 5
    "",  # 6
    "def main():",  # 7
    "    print(helper(2))",  # 8
    "    return 0",  # 9
]


# --- parsing ---------------------------------------------------------------------------------


def test_nothing_is_the_whole_file() -> None:
    assert parse_spec(None) == WHOLE_FILE
    assert parse_spec({}) == WHOLE_FILE
    assert WHOLE_FILE.is_whole and WHOLE_FILE.by_lines


@pytest.mark.parametrize(
    ("data", "spec"),
    [
        ({"regex": "def x"}, WindowSpec(regex="def x")),
        ({"start_line": 3}, WindowSpec(start=Anchor(line=3))),
        ({"start_line": 3, "end_line": 9}, WindowSpec(start=Anchor(line=3), end=Anchor(line=9))),
        (
            {"start": "class A", "end_regex": "^\\S"},
            WindowSpec(start=Anchor(text="class A"), end=Anchor(regex="^\\S")),
        ),
        (
            {"start_regex": "def \\w+", "end": "return"},
            WindowSpec(start=Anchor(regex="def \\w+"), end=Anchor(text="return")),
        ),
        ({"end_line": 4}, WindowSpec(end=Anchor(line=4))),
    ],
)
def test_flat_form(data: dict[str, object], spec: WindowSpec) -> None:
    assert parse_spec(data) == spec


@pytest.mark.parametrize(
    ("data", "spec"),
    [
        ({"start": {"regex": "def x"}}, WindowSpec(start=Anchor(regex="def x"))),
        (
            {"start": {"line": 2}, "end": {"text": "return"}},
            WindowSpec(start=Anchor(line=2), end=Anchor(text="return")),
        ),
        (
            {"start": {"text": "a"}, "end_line": 7},
            WindowSpec(start=Anchor(text="a"), end=Anchor(line=7)),
        ),
    ],
)
def test_nested_form(data: dict[str, object], spec: WindowSpec) -> None:
    assert parse_spec(data) == spec


@pytest.mark.parametrize(
    "spec",
    [
        WindowSpec(regex="def helper"),
        WindowSpec(start=Anchor(line=2), end=Anchor(regex="x$")),
        WindowSpec(start=Anchor(text="a"), end=Anchor(line=5)),
        WindowSpec(end=Anchor(text="z")),
    ],
)
def test_to_dict_reads_back(spec: WindowSpec) -> None:
    assert parse_spec(spec.to_dict()) == spec


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"regex": "x", "start_line": 3}, "not both"),
        ({"regex": "x", "end": "y"}, "not both"),
        ({"start_line": 3, "start": "def"}, "give exactly one"),
        ({"start": "def", "start_regex": "d"}, "give exactly one"),
        ({"start": {"line": 3}, "start_regex": "d"}, "not both"),
        ({"start": {"line": 3, "text": "x"}}, "give exactly one"),
        ({"start": {"column": 3}}, "unknown field"),
        ({"middle": 3}, "unknown window field"),
        ({"start_line": 0}, "1 or more"),
        ({"start_line": True}, "line number"),
        ({"start_line": 5, "end_line": 4}, "end_line 4 is before start_line 5"),
        ({"start": ""}, "non-empty"),
        ({"start": "two\nlines"}, "within one line"),
        ({"regex": "x" * 2_001}, "too long"),
    ],
)
def test_bad_specs_say_why(data: dict[str, object], words: str) -> None:
    with pytest.raises(WindowError, match=words):
        parse_spec(data)


def test_a_regex_that_does_not_compile_names_the_position() -> None:
    with pytest.raises(WindowError, match=r"does not compile at position 9: missing \)"):
        parse_spec({"regex": "def foo(x"})
    with pytest.raises(WindowError, match="position"):
        parse_spec({"end_regex": "[a-"})


@pytest.mark.parametrize(
    ("text", "path", "spec"),
    [
        ("a.py", "a.py", WHOLE_FILE),
        ("src/a.py:10-40", "src/a.py", WindowSpec(start=Anchor(line=10), end=Anchor(line=40))),
        ("a.py:10-", "a.py", WindowSpec(start=Anchor(line=10))),
        ("a.py:7", "a.py", WindowSpec(start=Anchor(line=7), end=Anchor(line=7))),
        ("a.py:-5", "a.py", WindowSpec(start=Anchor(line=1), end=Anchor(line=5))),
        ("a.py#/def x/", "a.py", WindowSpec(regex="def x")),
        ("a.py#/a/b/", "a.py", WindowSpec(regex="a/b")),
        ("C:x", "C:x", WHOLE_FILE),
        ("C:\\src\\a.py", "C:\\src\\a.py", WHOLE_FILE),
        ("notes:todo.txt", "notes:todo.txt", WHOLE_FILE),
        ("a.py:", "a.py:", WHOLE_FILE),
    ],
)
def test_cli_forms(text: str, path: str, spec: WindowSpec) -> None:
    assert parse_cli_spec(text) == (path, spec)


@pytest.mark.parametrize("text", ["a.py:40-10", "a.py:0", "a.py#/(/", "#/x/", "a.py#//"])
def test_bad_cli_forms(text: str) -> None:
    with pytest.raises(WindowError):
        parse_cli_spec(text)


def test_describe() -> None:
    assert WHOLE_FILE.describe() == "whole file"
    assert WindowSpec(regex="def helper").describe() == "/def helper/"
    assert parse_spec({"start_line": 4, "end_line": 5}).describe() == "lines 4-5"
    assert parse_spec({"start_line": 4}).describe() == "lines 4-end"
    assert parse_spec({"start": "def", "end_regex": "^$"}).describe() == "'def' .. /^$/"


# --- resolution ------------------------------------------------------------------------------


def test_a_regex_window_spans_the_lines_of_its_match() -> None:
    assert resolve(WindowSpec(regex=r"def helper.*\n.*return"), CODE) == Found(4, 5)
    assert resolve(WindowSpec(regex="helper"), CODE) == Found(4, 4, candidates=2)


def test_a_match_ending_with_a_newline_ends_on_its_line() -> None:
    assert resolve(WindowSpec(regex=r"def helper\(x\):\n"), CODE) == Found(4, 4)


def test_text_and_regex_anchors() -> None:
    spec = parse_spec({"start": "def helper", "end": "return"})
    assert resolve(spec, CODE) == Found(4, 5)
    spec = parse_spec({"start_regex": r"^def main", "end_regex": r"return \d"})
    assert resolve(spec, CODE) == Found(7, 9)


def test_the_end_is_searched_after_the_start() -> None:
    # "return" occurs at line 5, before main: the window runs to main's own return
    assert resolve(parse_spec({"start": "def main", "end": "return"}), CODE) == Found(7, 9)
    # the end may be on the start line itself, after the start's match
    assert resolve(parse_spec({"start": "def", "end": "(x)"}), CODE) == Found(4, 4, candidates=2)
    spec = parse_spec({"start": "def main", "end": "import"})
    found = resolve(spec, CODE)
    assert isinstance(found, Lost) and "not found after line 7" in found.reason


def test_omitted_ends_are_the_ends_of_the_file() -> None:
    assert resolve(parse_spec({"start": "def main"}), CODE) == Found(7, 9)
    assert resolve(parse_spec({"end": "def helper"}), CODE) == Found(1, 4)
    assert resolve(WHOLE_FILE, CODE) == Found(1, 9)
    assert resolve(parse_spec({"start_line": 8, "end_line": 99}), CODE) == Found(8, 9)


def test_line_windows_past_the_end_are_lost() -> None:
    found = resolve(parse_spec({"start_line": 10}), CODE)
    assert isinstance(found, Lost) and "past the end" in found.reason
    found = resolve(parse_spec({"start": "def main", "end_line": 2}), CODE)
    assert isinstance(found, Lost) and "before the start" in found.reason


def test_an_empty_file() -> None:
    assert resolve(WHOLE_FILE, []) == Found(1, 0)
    assert isinstance(resolve(WindowSpec(regex="x"), []), Lost)


def test_nothing_matches() -> None:
    found = resolve(WindowSpec(regex="class"), CODE)
    assert isinstance(found, Lost) and "/class/ matches nothing" in found.reason
    found = resolve(parse_spec({"start": "class"}), CODE)
    assert isinstance(found, Lost) and "'class' matches nothing" in found.reason


def test_the_occurrence_nearest_the_hint_wins() -> None:
    spec = parse_spec({"start": "def helper", "end": "return"})
    edited = ["def helper_old():", "    return None", *CODE]  # an earlier occurrence, above
    assert resolve(spec, edited) == Found(1, 2, candidates=2)  # without a hint: the first
    assert resolve(spec, edited, hint=6) == Found(6, 7, candidates=2)  # where it was: stays
    regex_spec = WindowSpec(regex=r"def helper.*\n.*return")
    assert resolve(regex_spec, edited, hint=6) == Found(6, 7, candidates=2)
    assert resolve(regex_spec, edited, hint=1) == Found(1, 2, candidates=2)


def test_ties_go_to_the_earlier_line() -> None:
    lines = ["x", "", "x"]
    assert resolve(parse_spec({"start": "x"}), lines, hint=2) == Found(1, 3, candidates=2)


def candidates(spec: WindowSpec, lines: list[str]) -> int:
    found = resolve(spec, lines)
    assert isinstance(found, Found)
    return found.candidates


def test_the_candidates_are_counted_and_capped() -> None:
    lines = ["x = 1"] * 5
    assert candidates(parse_spec({"start": "x"}), lines) == 5
    assert candidates(WindowSpec(regex="x"), lines) == 5
    many = ["x"] * (windows.MAX_CANDIDATES + 50)
    assert candidates(parse_spec({"start": "x"}), many) == windows.MAX_CANDIDATES
    assert candidates(WindowSpec(regex="^x$"), many) == windows.MAX_CANDIDATES


def test_a_catastrophic_regex_is_stopped() -> None:
    lines = ["a" * 30_000 + "b"]
    with pytest.raises(WindowError, match=r"took longer than 0\.2 s"):
        resolve(WindowSpec(regex="(a+)+$"), lines)  # how soon: bench/workspace.py


def test_a_catastrophic_end_regex_is_stopped_too() -> None:
    lines = ["start", "a" * 30_000 + "b"]
    with pytest.raises(WindowError, match="simpler pattern"):
        resolve(parse_spec({"start": "start", "end_regex": "(a+)+$"}), lines)


# --- following edits -------------------------------------------------------------------------


TEN = [f"line {n}" for n in range(1, 11)]


def test_map_lines_unchanged() -> None:
    assert map_lines(4, 5, TEN, list(TEN)) == (4, 5)


def test_an_insert_above_shifts() -> None:
    after = ["new a", "new b", "new c", *TEN]
    assert map_lines(4, 5, TEN, after) == (7, 8)
    after = [*TEN[:3], "between", *TEN[3:]]  # right above the window
    assert map_lines(4, 5, TEN, after) == (5, 6)


def test_a_delete_above_shifts_up() -> None:
    assert map_lines(4, 5, TEN, TEN[2:]) == (2, 3)


def test_an_edit_below_keeps() -> None:
    after = [*TEN[:7], "changed", *TEN[8:], "more", "and more"]
    assert map_lines(4, 5, TEN, after) == (4, 5)
    assert map_lines(4, 5, TEN, TEN[:6]) == (4, 5)


def test_an_edit_inside_grows_and_shrinks() -> None:
    grown = [*TEN[:4], "x", "y", "z", *TEN[5:]]  # line 5 became three lines
    assert map_lines(4, 6, TEN, grown) == (4, 8)
    shrunk = [*TEN[:4], *TEN[6:]]  # lines 5-6 deleted
    assert map_lines(4, 7, TEN, shrunk) == (4, 5)
    first_replaced = [*TEN[:3], "p", "q", *TEN[4:]]
    assert map_lines(4, 5, TEN, first_replaced) == (4, 6)


def test_the_ends_of_a_window_deleted() -> None:
    assert map_lines(4, 6, TEN, [*TEN[:3], *TEN[4:]]) == (4, 5)  # its first line
    assert map_lines(4, 6, TEN, [*TEN[:5], *TEN[6:]]) == (4, 5)  # its last line


def test_a_window_deleted_whole_is_none() -> None:
    assert map_lines(4, 5, TEN, [*TEN[:3], *TEN[5:]]) is None
    assert map_lines(1, 10, TEN, []) is None


def test_relocate_after_an_outside_change() -> None:
    after = ["header", "header 2", *TEN[:5], "inserted", *TEN[5:]]
    assert relocate("line 4", "line 6", 3, after, 4) == (6, 9)  # grew by the insert inside
    assert relocate("line 4", "line 5", 2, after, 4) == (6, 7)
    assert relocate("gone", "line 5", 2, after, 4) is None


def test_relocate_prefers_the_size_then_the_hint() -> None:
    lines = ["a", "b", "x", "a", "b"]
    assert relocate("a", "b", 2, lines, 4) == (4, 5)
    assert relocate("a", "b", 2, lines, 1) == (1, 2)
    assert relocate("x", "x", 1, lines, 1) == (3, 3)


def test_changed_lines_and_ranges() -> None:
    old = ["a", "b", "c"]
    assert changed_lines(old, ["a", "B", "c"], 4) == [5]
    assert changed_lines(old, ["a", "b", "n1", "n2", "c"], 4) == [6, 7]
    assert changed_lines(old, ["a", "c"], 4) == []
    assert ranges([9, 3, 4, 5, 11, 12]) == "3-5, 9, 11-12"
    assert ranges([]) == ""


def test_the_windows_own_first_line_wins_over_a_nearer_copy_of_the_anchor() -> None:
    lines = ["# helper(x) is used below", "x = 1", "def helper(x):", "    return x"]
    spec = WindowSpec(start=Anchor(text="helper(x)"), end=Anchor(line=4))
    assert resolve(spec, lines, hint=1) == Found(1, 4, 2)  # nearest the hint, by default
    assert resolve(spec, lines, hint=1, first_text="def helper(x):") == Found(3, 4, 2)
