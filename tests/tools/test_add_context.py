from __future__ import annotations

from pathlib import Path

import pytest

from zizou.core.state import FileView
from zizou.errors import PathError
from zizou.tools.add_context import TOOL, AddContextArgs, render_pin
from zizou.tools.base import ToolContext, ToolResult

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"


async def pin(
    ctx: ToolContext, path: str, start: int | None = None, end: int | None = None
) -> ToolResult:
    return await TOOL.run(AddContextArgs(path=path, start_line=start, end_line=end), ctx)


@pytest.fixture
def ten(root: Path) -> Path:
    path = root / "ten.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    return path


async def test_pins_whole_file(ten: Path, ctx: ToolContext) -> None:
    result = await pin(ctx, "ten.txt")
    assert result.ok
    assert "WORKSPACE" in result.output
    assert "every step" in result.output
    assert ctx.state.views == (FileView("ten.txt"),)


async def test_pins_window(ten: Path, ctx: ToolContext) -> None:
    result = await pin(ctx, "./ten.txt", 3, 5)
    assert result.ok
    assert "lines 3-5" in result.output
    assert ctx.state.views == (FileView("ten.txt", 3, 5),)


async def test_pinning_again_replaces_the_window(ten: Path, ctx: ToolContext) -> None:
    await pin(ctx, "ten.txt", 1, 2)
    await pin(ctx, "ten.txt", 4, 6)
    assert ctx.state.views == (FileView("ten.txt", 4, 6),)


async def test_pin_does_not_record_a_read(ten: Path, ctx: ToolContext) -> None:
    await pin(ctx, "ten.txt")  # the file is seen when the prompt shows it, not before
    assert ctx.state.check_unchanged(ten.resolve(), ten.read_bytes()) is not None


@pytest.mark.parametrize(
    ("start", "end", "words"),
    [(11, None, "has 10 lines"), (2, 11, "has 10 lines"), (5, 4, "before start_line")],
)
async def test_invalid_window_is_refused(
    ten: Path, ctx: ToolContext, start: int, end: int | None, words: str
) -> None:
    result = await pin(ctx, "ten.txt", start, end)
    assert not result.ok
    assert words in result.output
    assert ctx.state.views == ()


async def test_missing_file_is_refused(ctx: ToolContext) -> None:
    result = await pin(ctx, "nope.txt")
    assert not result.ok
    assert "does not exist" in result.output
    assert ctx.state.views == ()


async def test_binary_file_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "a.bin").write_bytes(b"\0\1\2")
    result = await pin(ctx, "a.bin")
    assert not result.ok
    assert "binary" in result.output
    assert ctx.state.views == ()


async def test_directory_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "src").mkdir()
    result = await pin(ctx, "src")
    assert not result.ok
    assert "list_dir" in result.output


async def test_long_file_gets_a_warning(root: Path, ctx: ToolContext) -> None:
    (root / "long.txt").write_text(("y" * 100 + "\n") * 400)
    result = await pin(ctx, "long.txt")
    assert result.ok
    assert "pin a window" in result.output


def test_render_pin_numbers_the_window(ten: Path, root: Path) -> None:
    assert render_pin(root, FileView("ten.txt", 2, 3)) == "     2\tline 2\n     3\tline 3"


def test_render_pin_whole_file(ten: Path, root: Path) -> None:
    text = render_pin(root, FileView("ten.txt"))
    assert text.splitlines()[0] == "     1\tline 1"
    assert text.splitlines()[-1] == "    10\tline 10"


def test_render_pin_reads_the_file_now(ten: Path, root: Path) -> None:
    ten.write_text("changed\n")
    assert render_pin(root, FileView("ten.txt")) == "     1\tchanged"


def test_render_pin_clamps_a_shrunk_window(ten: Path, root: Path) -> None:
    ten.write_text("a\nb\nc\n")
    assert render_pin(root, FileView("ten.txt", 2, 8)) == "     2\tb\n     3\tc"
    note = render_pin(root, FileView("ten.txt", 5, 8))
    assert note.startswith("[ten.txt:")
    assert "has 3 lines now" in note
    assert "\n" not in note


def test_render_pin_notes_vanished_file(ten: Path, root: Path) -> None:
    ten.unlink()
    note = render_pin(root, FileView("ten.txt"))
    assert note == "[ten.txt no longer exists]"


def test_render_pin_notes_binary_file(ten: Path, root: Path) -> None:
    ten.write_bytes(b"\0binary")
    note = render_pin(root, FileView("ten.txt"))
    assert "binary" in note
    assert "\n" not in note


def test_render_pin_caps_characters(root: Path) -> None:
    (root / "big.txt").write_text(("z" * 50 + "\n") * 1_000)
    text = render_pin(root, FileView("big.txt"), max_chars=1_000)
    assert len(text) < 1_200
    assert text.splitlines()[-1].startswith("[... cut at 1,000 characters; lines ")
    assert text.splitlines()[0] == "     1\t" + "z" * 50


def test_render_pin_refuses_outside_path(root: Path, outside: Path) -> None:
    (root / "link").symlink_to(outside / "secret.txt")
    for raw in ["link", "../outside/secret.txt", str(outside / "secret.txt")]:
        note = render_pin(root, FileView(raw))
        assert SECRET not in note
        assert "outside the project root" in note


def test_access_is_read(ctx: ToolContext) -> None:
    access = TOOL.access(AddContextArgs(path="src/a.py", start_line=1, end_line=2), ctx)
    assert access.kind == "read"
    assert access.paths == ("src/a.py",)


def test_access_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        with pytest.raises(PathError):
            TOOL.access(AddContextArgs(path=raw), ctx)


async def test_run_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        result = await pin(ctx, raw)
        assert not result.ok, raw
        assert SECRET not in result.output
    assert ctx.state.views == ()


def test_schema_has_exact_arguments() -> None:
    schema = TOOL.schema()
    params = schema["function"]["parameters"]
    assert schema["function"]["name"] == "add_context"
    assert set(params["properties"]) == {"path", "start_line", "end_line"}
    assert params["required"] == ["path"]
    assert "WORKSPACE" in schema["function"]["description"]
