"""A tool call as an editor sees it: its kind, title, places and content (pure)."""

from __future__ import annotations

from pathlib import Path

from zizou.acp.tool_calls import SHOWN_CHARS, diff_contents, locations, shown, tool_kind
from zizou.tools._atomic import unified_diff

ROOT = Path("/work/project")


def test_kinds_follow_what_the_tool_does() -> None:
    assert [tool_kind(n) for n in ("read_file", "edit_file", "delete_file", "grep")] == [
        "read",
        "edit",
        "delete",
        "search",
    ]
    assert tool_kind("run_bash") == "execute" and tool_kind("update_state") == "think"
    assert tool_kind("mcp__git__git_status") == "other"


def test_an_edit_becomes_one_diff_per_hunk_with_its_first_new_line() -> None:
    old = "".join(f"line {n}\n" for n in range(1, 30))
    new = old.replace("line 3\n", "line three\n").replace("line 25\n", "line 25b\n")
    contents, places = diff_contents(ROOT, unified_diff("src/a.py", old, new))
    assert [c.path for c in contents] == [str(ROOT / "src/a.py")] * 2
    assert "line 3\n" in (contents[0].old_text or "") and "line three\n" in contents[0].new_text
    assert "line three" not in (contents[0].old_text or "")
    assert [(p.path, p.line) for p in places] == [
        (str(ROOT / "src/a.py"), 1),
        (str(ROOT / "src/a.py"), 22),
    ]


def test_a_new_file_has_no_old_text() -> None:
    [content], _ = diff_contents(ROOT, unified_diff("new.txt", None, "hello\n"))
    assert content.old_text is None and content.new_text == "hello\n"


def test_locations_are_absolute_and_carry_a_start_line() -> None:
    [place] = locations(ROOT, {"path": "a.py", "start_line": 40})
    assert (place.path, place.line) == ("/work/project/a.py", 40)
    assert locations(ROOT, {"command": "ls"}) == []


def test_a_long_output_keeps_its_tail() -> None:
    text = "x" * SHOWN_CHARS + "the end"
    assert shown(text).endswith("the end") and shown(text).startswith("[… 7 characters left out]")
