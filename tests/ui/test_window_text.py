"""How windows read in the app, and the arguments and mentions that name them: pure, no App."""

from __future__ import annotations

import pytest

from zizou.contracts.workspace import WindowInfo
from zizou.ui.slash import split_args
from zizou.ui.window_text import context_use, describe, lines_of, listing, mentions, reason


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("look at @src/app.py", ["src/app.py"]),
        ("fix @app.py:4-5 (see @notes.md.) please", ["app.py:4-5", "notes.md"]),
        ("@a.py#/def main/, then @b.py:10-", ["a.py#/def main/", "b.py:10-"]),
        ("mail me@example.com or @@x", []),
        ("@a.py and @a.py again", ["a.py"]),
        ("`@dataclass` is a decorator", ["dataclass"]),  # no such file: the app passes it over
    ],
)
def test_mentions_are_the_at_tokens_of_a_message(text: str, expected: list[str]) -> None:
    assert mentions(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a.py b.py:1-2", ["a.py", "b.py:1-2"]),
        ("a.py#/def main/  b.py", ["a.py#/def main/", "b.py"]),
        ("a.py#/x/y/ z", ["a.py#/x/y/", "z"]),
        ("a.py#/a\\/ b/ c", ["a.py#/a\\/ b/", "c"]),
        ("a.py#/(unclosed", ["a.py#/(unclosed"]),
    ],
)
def test_a_regex_argument_keeps_its_spaces(text: str, expected: list[str]) -> None:
    assert split_args(text) == expected


def test_a_window_reads_with_its_lines_anchor_and_state() -> None:
    lines = WindowInfo("w1", "a.py", "lines 4-9", (4, 9), "open")
    anchored = WindowInfo("w2", "a.py", "/def main/", (12, 30), "open")
    fresh = WindowInfo("w3", "b.py", "whole file", None, "open")
    note = "not found: /def x/ matches nothing; last seen at lines 3-5"
    lost = WindowInfo("w4", "c.py", "/def x/", (3, 5), "lost", note)
    collapsed = WindowInfo("w5", "d.py", "whole file", (1, 400), "collapsed")
    assert describe(lines) == "w1  a.py  lines 4-9"
    assert describe(anchored) == "w2  a.py  lines 12-30  /def main/"
    assert describe(fresh) == "w3  b.py  whole file  shown from the next step"
    assert describe(lost) == f"w4  c.py  lines 3-5  /def x/  lost: {note}"
    assert describe(collapsed).endswith("lines 1-400  collapsed to fit the workspace's budget")
    assert (lines_of(anchored), lines_of(fresh)) == ("12-30", "whole file")
    assert reason(lost) == "/def x/ matches nothing"
    assert reason(lost, limit=10) == "/def x/ m…"
    assert listing(()) == "The workspace is empty."
    assert listing((lines,)).startswith("Workspace: 1 window, shown")


def test_the_context_in_use_is_a_share_or_a_count() -> None:
    assert context_use(0, 128_000) == ""
    assert context_use(15_360, 128_000) == "ctx 12%"
    assert context_use(900, 128_000) == "ctx <1%"
    assert context_use(3_200, None) == "ctx 3.2k"
    assert context_use(640, None) == "ctx 640"
