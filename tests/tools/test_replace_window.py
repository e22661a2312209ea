"""replace_window: exactly the window's lines change, every other byte is kept (CRLF stays CRLF,
a missing final newline stays missing), and only content the model has seen is changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zizou.agent.workspace_layer import WorkspaceLayer
from zizou.contracts.state import SessionState
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.open_in_workspace import TOOL as OPEN
from zizou.tools.open_in_workspace import OpenArgs
from zizou.tools.read_file import TOOL as READ_FILE
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.replace_window import TOOL as REPLACE
from zizou.tools.replace_window import ReplaceWindowArgs

from .conftest import SECRET

LF = b"one\ntwo\nthree\nfour\nfive\n"
CRLF_NO_EOL = b"one\r\ntwo\r\nthree\r\nfour\r\nfive"


@pytest.fixture
def layer(root: Path, ctx: ToolContext) -> WorkspaceLayer:
    assert isinstance(ctx.state, SessionState)
    return WorkspaceLayer(root, ctx.state)


async def open_(ctx: ToolContext, path: str, window: dict[str, Any] | None = None) -> None:
    result = await OPEN.run(OpenArgs.model_validate({"path": path, "window": window}), ctx)
    assert result.ok, result.output


async def read(ctx: ToolContext, path: str) -> None:
    assert (await READ_FILE.run(ReadFileArgs(path=path), ctx)).ok


async def replace(ctx: ToolContext, path: str, content: str, **fields: Any) -> ToolResult:
    args = ReplaceWindowArgs.model_validate({"path": path, "content": content, **fields})
    return await REPLACE.run(args, ctx)


async def test_by_window_id_on_an_lf_file(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt", {"start_line": 2, "end_line": 3})
    layer.render(32_000)  # shown whole this step: it may be replaced
    result = await replace(ctx, "f.txt", "TWO\nTWO AND A HALF\nTHREE\n", window_id="w1")
    assert result.ok, result.output
    assert (root / "f.txt").read_bytes() == b"one\nTWO\nTWO AND A HALF\nTHREE\nfour\nfive\n"
    assert result.output == (
        "Replaced lines 2-3 of f.txt (w1) with 3 lines; the new text is at lines 2-4."
    )
    assert result.diff is not None
    assert "-two\n-three\n+TWO\n+TWO AND A HALF\n+THREE\n" in result.diff
    assert result.diff.startswith("--- a/f.txt\n+++ b/f.txt\n")
    assert result.replaced == LF.decode()
    text = layer.render(32_000).text
    assert text.startswith("## f.txt · w1 · lines 2-4 · changed since your last step: lines 2-4")


async def test_by_window_on_a_file_read(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    result = await replace(ctx, "f.txt", "4", window={"start": "fou", "end": "r"})
    assert result.ok, result.output
    assert (root / "f.txt").read_bytes() == b"one\ntwo\nthree\n4\nfive\n"


async def test_the_content_need_not_end_with_a_newline(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    assert (await replace(ctx, "f.txt", "x", window={"start_line": 1, "end_line": 1})).ok
    assert (root / "f.txt").read_bytes() == b"x\ntwo\nthree\nfour\nfive\n"


async def test_crlf_without_a_final_newline_keeps_both(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "w.txt").write_bytes(CRLF_NO_EOL)
    await open_(ctx, "w.txt", {"start": "four"})  # to the end: holds the last line
    layer.render(32_000)
    result = await replace(ctx, "w.txt", "FOUR\nFIVE\nSIX\n", window_id="w1")
    assert result.ok, result.output
    assert (root / "w.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\nFOUR\r\nFIVE\r\nSIX"


async def test_crlf_a_window_in_the_middle(root: Path, ctx: ToolContext) -> None:
    (root / "w.txt").write_bytes(CRLF_NO_EOL)
    await read(ctx, "w.txt")
    result = await replace(ctx, "w.txt", "2\r\n3", window={"regex": "two\\nthree"})
    assert result.ok, result.output
    assert (root / "w.txt").read_bytes() == b"one\r\n2\r\n3\r\nfour\r\nfive"


async def test_empty_content_removes_the_lines(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    result = await replace(ctx, "f.txt", "", window={"start_line": 2, "end_line": 4})
    assert result.ok, result.output
    assert (root / "f.txt").read_bytes() == b"one\nfive\n"
    assert result.output == "Removed lines 2-4 of f.txt."


async def test_removing_the_last_lines_keeps_no_final_newline(root: Path, ctx: ToolContext) -> None:
    (root / "w.txt").write_bytes(CRLF_NO_EOL)
    await read(ctx, "w.txt")
    result = await replace(ctx, "w.txt", "", window={"start_line": 4})
    assert result.ok, result.output
    assert (root / "w.txt").read_bytes() == b"one\r\ntwo\r\nthree"


async def test_other_windows_on_the_file_shift(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt", {"start_line": 1, "end_line": 1})
    await open_(ctx, "f.txt", {"start_line": 4, "end_line": 5})
    await open_(ctx, "f.txt", {"regex": "^five$"})
    layer.render(32_000)
    result = await replace(ctx, "f.txt", "ONE\nONE MORE\n", window_id="w1")
    assert result.ok, result.output
    text = layer.render(32_000).text
    headers = [line for line in text.split("\n") if line.startswith("## ")]
    assert headers[1] == "## f.txt · w2 · lines 5-6"
    assert headers[2] == "## f.txt · w3 · lines 6-6 · /^five$/"
    assert "     6\tfive" in text


async def test_refused_when_never_seen(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt")  # opened, but not yet shown
    result = await replace(ctx, "f.txt", "x", window_id="w1")
    assert not result.ok and "read the file" in result.output
    result = await replace(ctx, "f.txt", "x", window={"start_line": 1, "end_line": 1})
    assert not result.ok
    assert (root / "f.txt").read_bytes() == LF


async def test_refused_when_changed_since_seen(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt", {"start_line": 2, "end_line": 3})
    layer.render(32_000)
    changed = b"zero\n" + LF
    (root / "f.txt").write_bytes(changed)  # the user's editor, after the render
    result = await replace(ctx, "f.txt", "x\n", window_id="w1")
    assert not result.ok and "changed since" in result.output
    assert (root / "f.txt").read_bytes() == changed


async def test_a_line_window_moved_outside_then_read_is_not_replaced_blind(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt", {"start_line": 2, "end_line": 3})
    layer.render(32_000)
    (root / "f.txt").write_bytes(b"zero\n" + LF)  # w1's lines are now 3-4
    await read(ctx, "f.txt")  # seen again, but the workspace has not been shown since
    result = await replace(ctx, "f.txt", "TWO\nTHREE\n", window_id="w1")
    assert not result.ok and "changed outside zizou since it was shown" in result.output
    assert (root / "f.txt").read_bytes() == b"zero\n" + LF  # not lines 2-3, "one" and "two"
    layer.render(32_000)  # shown again, at its new place
    assert (await replace(ctx, "f.txt", "TWO\nTHREE\n", window_id="w1")).ok
    assert (root / "f.txt").read_bytes() == b"zero\none\nTWO\nTHREE\nfour\nfive\n"


@pytest.mark.parametrize(
    "window", [{"regex": "^three\\nfour$"}, {"start": "three", "end": "four"}, None]
)
async def test_a_window_an_edit_moved_before_the_next_render(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer, window: dict[str, Any] | None
) -> None:
    (root / "f.txt").write_bytes(LF)
    await open_(ctx, "f.txt", window)
    layer.render(32_000)
    edit = await replace(ctx, "f.txt", "zero\none\n", window={"start_line": 1, "end_line": 1})
    assert edit.ok, edit.output
    result = await replace(ctx, "f.txt", "3\n4\n" if window else "all\n", window_id="w1")
    assert result.ok, result.output
    expected = b"zero\none\ntwo\n3\n4\nfive\n" if window else b"all\n"
    assert (root / "f.txt").read_bytes() == expected


async def test_window_id_and_window_are_one_or_the_other(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    neither = await replace(ctx, "f.txt", "x")
    both = await replace(ctx, "f.txt", "x", window_id="w1", window={"start_line": 1})
    assert not neither.ok and not both.ok
    assert "exactly one of window_id" in neither.output
    assert (root / "f.txt").read_bytes() == LF


async def test_an_unknown_or_lost_window_id(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    (root / "f.txt").write_bytes(LF)
    (root / "g.txt").write_bytes(LF)
    await open_(ctx, "g.txt", {"regex": "^three$"})
    layer.render(32_000)
    await read(ctx, "f.txt")
    other = await replace(ctx, "f.txt", "x", window_id="w1")  # w1 is on g.txt
    assert not other.ok and "no open window w1 on f.txt" in other.output
    assert "w1 g.txt" in other.output
    (root / "g.txt").write_bytes(LF.replace(b"three", b"3"))
    layer.render(32_000)  # the anchor is lost now
    await read(ctx, "g.txt")
    lost = await replace(ctx, "g.txt", "x", window_id="w1")
    assert not lost.ok and "w1 is not shown now" in lost.output
    assert (root / "f.txt").read_bytes() == LF


async def test_nothing_to_change(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    result = await replace(ctx, "f.txt", "two\n", window={"start_line": 2, "end_line": 2})
    assert not result.ok and "nothing changed" in result.output


async def test_a_window_that_matches_nothing(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    await read(ctx, "f.txt")
    result = await replace(ctx, "f.txt", "x", window={"regex": "^six$"})
    assert not result.ok and "matches nothing" in result.output
    assert (root / "f.txt").read_bytes() == LF


async def test_binary_missing_and_outside(
    root: Path, ctx: ToolContext, escaping: list[str]
) -> None:
    (root / "b.bin").write_bytes(b"\0\1\2")
    binary = await replace(ctx, "b.bin", "x", window={"start_line": 1})
    missing = await replace(ctx, "nope.txt", "x", window={"start_line": 1})
    assert not binary.ok and not missing.ok
    assert "does not exist" in missing.output
    for raw in escaping:
        result = await replace(ctx, raw, "pwned", window={"start_line": 1})
        assert not result.ok and SECRET not in result.output
    assert (root.parent / "outside" / "secret.txt").read_text() == SECRET + "\n"


def test_access_is_a_write(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_bytes(LF)
    args = ReplaceWindowArgs(path="f.txt", window_id="w1", content="x")
    access = REPLACE.access(args, ctx)
    try:
        assert (access.kind, access.paths) == ("write", ("f.txt",))
    finally:
        access.close()
    assert REPLACE.label(args) == "f.txt · w1"


async def test_an_anchored_window_moved_by_an_edit_is_found_again_before_it_is_replaced(
    root: Path, ctx: ToolContext, layer: WorkspaceLayer
) -> None:
    source = b"def foo():\n    a = 1\n    b = 2\n    return a\n}\ntail\n"
    (root / "f.py").write_bytes(source)
    await open_(ctx, "f.py", {"start_line": 2, "end_line": 2})  # w1
    await open_(ctx, "f.py", {"regex": r"def foo\(\):\n(?:    .*\n)*}"})  # w2: lines 1-5
    layer.render(32_000)
    grown = await replace(ctx, "f.py", "    a = 1\n    c = 3\n    d = 4", window_id="w1")
    assert grown.ok, grown.output
    # w2 is now lines 1-7, although its stale span (1-5) still ends on a line of the new text
    result = await replace(ctx, "f.py", "def foo():\n    pass\n}", window_id="w2")
    assert result.ok, result.output
    assert (root / "f.py").read_bytes() == b"def foo():\n    pass\n}\ntail\n"
