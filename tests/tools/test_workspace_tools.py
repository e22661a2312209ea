"""open_in_workspace, close_in_workspace and read_file's `window`: what the model asks for is
opened (or refused with a reason, nothing changed), and closed by id, by window or by file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from zizou.contracts.state import SessionState
from zizou.contracts.workspace import MAX_WINDOWS, MAX_WINDOWS_PER_FILE
from zizou.tools._windows import WindowArgs
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.close_in_workspace import TOOL as CLOSE
from zizou.tools.close_in_workspace import CloseArgs
from zizou.tools.open_in_workspace import TOOL as OPEN
from zizou.tools.open_in_workspace import OpenArgs
from zizou.tools.read_file import TOOL as READ_FILE
from zizou.tools.read_file import ReadFileArgs

from .conftest import SECRET

CODE = """\
import os


def helper(x):
    return x + 1

def main():
    print(helper(2))
    return 0
"""


@pytest.fixture
def project(root: Path) -> Path:
    (root / "a.py").write_text(CODE)
    (root / "blob.bin").write_bytes(b"\0\1\2\3")
    (root / "long.txt").write_text("a" * 30_000 + "b\n")
    return root


def state_of(ctx: ToolContext) -> SessionState:
    assert isinstance(ctx.state, SessionState)
    return ctx.state


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


async def open_(ctx: ToolContext, path: str, window: dict[str, Any] | None = None) -> ToolResult:
    return await OPEN.run(OpenArgs.model_validate({"path": path, "window": window}), ctx)


async def close(ctx: ToolContext, path: str, **fields: Any) -> ToolResult:
    return await CLOSE.run(CloseArgs.model_validate({"path": path, **fields}), ctx)


# --- open_in_workspace -----------------------------------------------------------------------


async def test_open_a_regex_window(project: Path, ctx: ToolContext) -> None:
    result = await open_(ctx, "a.py", {"regex": r"def helper.*\n.*"})
    assert result.ok
    assert result.output.startswith("Opened w1: a.py lines 4-5 (/def helper.*\\n.*/).")
    assert "WORKSPACE" in result.output
    [window] = state_of(ctx).windows
    assert (window.id, window.path, window.spec) == ("w1", "a.py", "/def helper.*\\n.*/")


async def test_open_the_whole_file_and_lines(project: Path, ctx: ToolContext) -> None:
    assert (await open_(ctx, "./a.py")).output.startswith("Opened w1: a.py lines 1-9.")
    lines = await open_(ctx, "a.py", {"start_line": 7, "end_line": 8})
    assert lines.output.startswith("Opened w2: a.py lines 7-8.")


async def test_open_the_nested_form(project: Path, ctx: ToolContext) -> None:
    result = await open_(ctx, "a.py", {"start": {"text": "def main"}, "end": {"regex": "ret"}})
    assert result.ok and "lines 7-9" in result.output
    assert state_of(ctx).windows[0].spec == "'def main' .. /ret/"


async def test_an_ambiguous_window_says_so(project: Path, ctx: ToolContext) -> None:
    result = await open_(ctx, "a.py", {"regex": "helper"})
    assert result.ok
    assert "lines 4-4" in result.output and "matches 2 places" in result.output


async def test_opening_the_same_window_twice_gives_the_same_id(
    project: Path, ctx: ToolContext
) -> None:
    await open_(ctx, "a.py", {"start_line": 4, "end_line": 5})
    again = await open_(ctx, "a.py", {"start_line": 4, "end_line": 5})
    assert again.ok and "w1" in again.output and "already open" in again.output
    assert [w.id for w in state_of(ctx).windows] == ["w1"]


@pytest.mark.parametrize(
    ("path", "window", "words"),
    [
        ("a.py", {"regex": "def helper(x"}, "does not compile at position 12"),
        ("a.py", {"start_regex": "[unclosed"}, "does not compile at position"),
        ("a.py", {"regex": "class Nope"}, "nothing in a.py matches the window"),
        ("a.py", {"start": "def main", "end": "import"}, "not found after line 7"),
        ("a.py", {"start_line": 40}, "past the end of the file (9 lines)"),
        ("a.py", {"regex": "def", "start_line": 3}, "either `regex` alone"),
        ("a.py", {"start_line": 3, "start": "def"}, "give exactly one"),
        ("a.py", {"start_line": 5, "end_line": 4}, "before start_line"),
        ("blob.bin", None, "looks binary"),
        ("nope.py", None, "does not exist"),
        ("../outside/secret.txt", None, "outside the project root"),
        ("..", None, "outside the project root"),
    ],
)
async def test_open_errors_change_nothing(
    project: Path, ctx: ToolContext, path: str, window: dict[str, Any] | None, words: str
) -> None:
    before = snapshot(project.parent)
    result = await open_(ctx, path, window)
    assert not result.ok
    assert words in result.output
    assert SECRET not in result.output
    assert state_of(ctx).windows == ()
    assert state_of(ctx).ledger.hashes == {}
    assert snapshot(project.parent) == before


async def test_an_absolute_path_outside_is_refused(
    project: Path, outside: Path, ctx: ToolContext
) -> None:
    result = await open_(ctx, str(outside / "secret.txt"))
    assert not result.ok and SECRET not in result.output
    assert state_of(ctx).windows == ()


async def test_paths_leading_out_are_refused(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        result = await open_(ctx, raw)
        assert not result.ok, raw
        assert SECRET not in result.output
    assert state_of(ctx).windows == ()


async def test_a_catastrophic_regex_is_stopped_with_a_clear_error(
    project: Path, ctx: ToolContext
) -> None:
    # How soon it is stopped is measured by bench/workspace.py, not asserted here.
    result = await open_(ctx, "long.txt", {"regex": "(a+)+$"})
    assert not result.ok
    assert "took longer than 0.2 s" in result.output and "simpler pattern" in result.output
    assert state_of(ctx).windows == ()


async def test_a_bad_line_number_is_refused_by_the_schema() -> None:
    with pytest.raises(ValidationError):
        OpenArgs.model_validate({"path": "a.py", "window": {"start_line": 0}})
    with pytest.raises(ValidationError, match="given twice"):
        WindowArgs.model_validate({"start": {"regex": "x"}, "start_regex": "y"})
    with pytest.raises(ValidationError, match="unknown field"):
        WindowArgs.model_validate({"start": {"column": 3}})


async def test_the_33rd_window_names_the_least_recently_used(root: Path, ctx: ToolContext) -> None:
    files = MAX_WINDOWS // MAX_WINDOWS_PER_FILE
    for n in range(files):
        (root / f"f{n}.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    for n in range(files):
        for line in range(1, MAX_WINDOWS_PER_FILE + 1):
            assert (await open_(ctx, f"f{n}.txt", {"start_line": line})).ok
    (root / "one_more.txt").write_text("x\n")
    assert (await open_(ctx, "f0.txt", {"start_line": 1})).ok  # w1 used again: w2 is oldest
    before = state_of(ctx).windows
    result = await open_(ctx, "one_more.txt")
    assert not result.ok
    assert f"already has {MAX_WINDOWS} windows" in result.output
    assert "the least recently used is w2: f0.txt · w2" in result.output
    assert state_of(ctx).windows == before


async def test_the_9th_window_on_one_file_names_its_least_recently_used(
    root: Path, ctx: ToolContext
) -> None:
    (root / "f.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    (root / "g.txt").write_text("g\n")
    await open_(ctx, "g.txt")
    for line in range(1, MAX_WINDOWS_PER_FILE + 1):
        assert (await open_(ctx, "f.txt", {"start_line": line})).ok
    before = state_of(ctx).windows
    result = await open_(ctx, "f.txt", {"start_line": 12})
    assert not result.ok
    assert "f.txt already has 8 windows open" in result.output
    assert "the least recently used is w2: f.txt" in result.output  # not g.txt's w1
    assert state_of(ctx).windows == before
    assert (await open_(ctx, "g.txt", {"start_line": 1})).ok  # another file still has room


async def test_opening_does_not_count_as_reading(project: Path, ctx: ToolContext) -> None:
    await open_(ctx, "a.py")
    assert state_of(ctx).ledger.hashes == {}  # the file is seen when the prompt shows it


def test_access_is_a_read(project: Path, ctx: ToolContext) -> None:
    access = OPEN.access(OpenArgs(path="a.py"), ctx)
    try:
        assert (access.kind, access.paths) == ("read", ("a.py",))
    finally:
        access.close()


def test_the_label_names_the_window() -> None:
    args = OpenArgs.model_validate({"path": "a.py", "window": {"start_line": 3, "end_line": 9}})
    assert OPEN.label(args) == "a.py · lines 3-9"
    assert OPEN.label(OpenArgs(path="a.py")) == "a.py"


def test_the_schema_is_flat_and_has_no_refs() -> None:
    schema = OPEN.schema()["function"]["parameters"]
    assert "$defs" not in str(schema) and "$ref" not in str(schema)
    window = schema["properties"]["window"]
    variants = window.get("anyOf", [window])
    fields = next(v for v in variants if v.get("type") == "object")["properties"]
    assert set(fields) == {
        "regex",
        "start_line",
        "start",
        "start_regex",
        "end_line",
        "end",
        "end_regex",
    }


# --- close_in_workspace ----------------------------------------------------------------------


@pytest.fixture
async def three(project: Path, ctx: ToolContext) -> ToolContext:
    (project / "b.py").write_text("b = 1\n")
    await open_(ctx, "a.py", {"start_line": 1, "end_line": 2})
    await open_(ctx, "a.py", {"regex": "def main"})
    await open_(ctx, "b.py")
    return ctx


async def test_close_by_id(three: ToolContext) -> None:
    result = await close(three, "a.py", window_id="w2")
    assert result.ok and result.output == "Closed w2 (/def main/) of a.py."
    assert [w.id for w in state_of(three).windows] == ["w1", "w3"]


async def test_close_by_window(three: ToolContext) -> None:
    result = await close(three, "a.py", window={"start_line": 1, "end_line": 2})
    assert result.ok and "w1" in result.output
    assert [w.id for w in state_of(three).windows] == ["w2", "w3"]


async def test_close_every_window_of_a_file(three: ToolContext) -> None:
    result = await close(three, "./a.py")
    assert result.ok and "w1" in result.output and "w2" in result.output
    assert [w.id for w in state_of(three).windows] == ["w3"]


async def test_close_an_unknown_id_lists_the_open_windows(three: ToolContext) -> None:
    result = await close(three, "a.py", window_id="w9")
    assert not result.ok
    assert "no window w9" in result.output
    assert "w1 a.py (lines 1-2), w2 a.py (/def main/), w3 b.py (whole file)" in result.output
    assert len(state_of(three).windows) == 3


async def test_close_an_id_of_another_file_is_refused(three: ToolContext) -> None:
    result = await close(three, "b.py", window_id="w1")
    assert not result.ok and len(state_of(three).windows) == 3


async def test_close_a_window_not_open(three: ToolContext) -> None:
    result = await close(three, "a.py", window={"start_line": 5})
    assert not result.ok and "no window lines 5-end" in result.output
    both = await close(three, "a.py", window_id="w1", window={"start_line": 1, "end_line": 2})
    assert not both.ok and "not both" in both.output
    assert len(state_of(three).windows) == 3


async def test_close_the_windows_of_a_deleted_file(three: ToolContext, project: Path) -> None:
    (project / "b.py").unlink()
    result = await close(three, "b.py")
    assert result.ok and [w.id for w in state_of(three).windows] == ["w1", "w2"]


async def test_close_refuses_a_path_outside(three: ToolContext) -> None:
    result = await close(three, "../outside/secret.txt")
    assert not result.ok and len(state_of(three).windows) == 3


# --- read_file with a window -----------------------------------------------------------------


async def test_read_a_window(project: Path, ctx: ToolContext) -> None:
    result = await READ_FILE.run(
        ReadFileArgs.model_validate({"path": "a.py", "window": {"start": "def main"}}), ctx
    )
    assert result.ok
    assert (
        result.output == "     7\tdef main():\n     8\t    print(helper(2))\n     9\t    return 0"
    )
    regex = await READ_FILE.run(
        ReadFileArgs.model_validate({"path": "a.py", "window": {"regex": r"def helper.*\n.*"}}),
        ctx,
    )
    assert regex.output == "     4\tdef helper(x):\n     5\t    return x + 1"


async def test_read_a_window_and_lines_is_an_error(project: Path, ctx: ToolContext) -> None:
    args = ReadFileArgs.model_validate(
        {"path": "a.py", "start_line": 2, "window": {"regex": "def"}}
    )
    result = await READ_FILE.run(args, ctx)
    assert not result.ok and "not both" in result.output
    assert state_of(ctx).ledger.hashes == {}


async def test_read_a_window_that_matches_nothing(project: Path, ctx: ToolContext) -> None:
    args = ReadFileArgs.model_validate({"path": "a.py", "window": {"regex": "class"}})
    result = await READ_FILE.run(args, ctx)
    assert not result.ok and "matches nothing" in result.output
    assert state_of(ctx).ledger.hashes == {}
