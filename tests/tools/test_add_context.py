"""add_context: the old name of open_in_workspace, kept so that old sessions' calls still run.
It opens a line window; it is not offered to the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.agent.prompt import PromptBuilder
from zizou.agent.workspace_layer import WorkspaceLayer
from zizou.contracts.state import SessionState
from zizou.errors import PathError
from zizou.tools import default_registry
from zizou.tools.add_context import TOOL, AddContextArgs
from zizou.tools.base import ToolContext, ToolResult

from .conftest import SECRET


async def pin(
    ctx: ToolContext, path: str, start: int | None = None, end: int | None = None
) -> ToolResult:
    return await TOOL.run(AddContextArgs(path=path, start_line=start, end_line=end), ctx)


def state_of(ctx: ToolContext) -> SessionState:
    assert isinstance(ctx.state, SessionState)
    return ctx.state


@pytest.fixture
def ten(root: Path) -> Path:
    path = root / "ten.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    return path


async def test_opens_a_line_window(ten: Path, root: Path, ctx: ToolContext) -> None:
    result = await pin(ctx, "./ten.txt", 3, 5)
    assert result.ok
    assert result.output.startswith("Opened w1: ten.txt lines 3-5.")
    [window] = state_of(ctx).windows
    assert (window.path, window.spec) == ("ten.txt", "lines 3-5")
    text = WorkspaceLayer(root, state_of(ctx)).render(32_000).text
    assert text == "## ten.txt · w1 · lines 3-5\n     3\tline 3\n     4\tline 4\n     5\tline 5"


async def test_opens_the_whole_file(ten: Path, ctx: ToolContext) -> None:
    result = await pin(ctx, "ten.txt")
    assert result.ok and "lines 1-10" in result.output
    assert state_of(ctx).windows[0].spec == "whole file"


async def test_opens_from_a_line_to_the_end(ten: Path, ctx: ToolContext) -> None:
    result = await pin(ctx, "ten.txt", 8)
    assert result.ok and "lines 8-10" in result.output


async def test_the_same_window_twice_is_one_window(ten: Path, ctx: ToolContext) -> None:
    await pin(ctx, "ten.txt", 1, 2)
    again = await pin(ctx, "ten.txt", 1, 2)
    assert again.ok and "already open" in again.output
    await pin(ctx, "ten.txt", 4, 6)
    assert [w.id for w in state_of(ctx).windows] == ["w1", "w2"]


@pytest.mark.parametrize(
    ("start", "end", "words"),
    [(11, None, "past the end of the file (10 lines)"), (5, 4, "before start_line")],
)
async def test_bad_ranges_are_errors(
    ten: Path, ctx: ToolContext, start: int, end: int | None, words: str
) -> None:
    result = await pin(ctx, "ten.txt", start, end)
    assert not result.ok
    assert words in result.output
    assert state_of(ctx).windows == ()


async def test_missing_and_binary_files_are_refused(root: Path, ctx: ToolContext) -> None:
    (root / "a.bin").write_bytes(b"\0\1\2")
    assert "does not exist" in (await pin(ctx, "nope.txt")).output
    assert "binary" in (await pin(ctx, "a.bin")).output
    (root / "src").mkdir()
    assert "list_dir" in (await pin(ctx, "src")).output
    assert state_of(ctx).windows == ()


async def test_opening_is_not_reading(ten: Path, ctx: ToolContext) -> None:
    await pin(ctx, "ten.txt")  # the file is seen when the prompt shows it, not before
    assert state_of(ctx).check_unchanged(ten.resolve(), ten.read_bytes()) is not None


def test_access_is_read(ctx: ToolContext) -> None:
    access = TOOL.access(AddContextArgs(path="src/a.py", start_line=1, end_line=2), ctx)
    assert access.kind == "read"
    assert access.paths == ("src/a.py",)
    access.close()


def test_access_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        with pytest.raises(PathError):
            TOOL.access(AddContextArgs(path=raw), ctx)


async def test_run_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        result = await pin(ctx, raw)
        assert not result.ok, raw
        assert SECRET not in result.output
    assert state_of(ctx).windows == ()


def test_the_schema_is_unchanged_for_old_sessions() -> None:
    schema = TOOL.schema()
    params = schema["function"]["parameters"]
    assert schema["function"]["name"] == "add_context"
    assert set(params["properties"]) == {"path", "start_line", "end_line"}
    assert params["required"] == ["path"]


def test_it_is_not_offered(root: Path) -> None:
    registry = default_registry()
    assert registry.get("add_context") is not None  # a call to it still runs
    assert TOOL.advertised is False
    builder = PromptBuilder(root, registry, SessionState(), write_compiled=False, map_tokens=0)
    text = builder.render().text
    assert "add_context" not in text
    assert "- open_in_workspace: " in text
