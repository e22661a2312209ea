from __future__ import annotations

from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.read_file import TOOL, ReadFileArgs, format_line

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"


async def read(
    ctx: ToolContext, path: str, start: int | None = None, end: int | None = None
) -> ToolResult:
    return await TOOL.run(ReadFileArgs(path=path, start_line=start, end_line=end), ctx)


async def test_lines_are_numbered_like_cat_n(root: Path, ctx: ToolContext) -> None:
    (root / "a.py").write_text("first\n\tindented\nlast")
    result = await read(ctx, "a.py")
    assert result.ok
    assert result.output == "     1\tfirst\n     2\t\tindented\n     3\tlast"


async def test_crlf_is_not_shown(root: Path, ctx: ToolContext) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    result = await read(ctx, "win.txt")
    assert result.output == "     1\tone\n     2\ttwo"


async def test_form_feed_does_not_split_lines(root: Path, ctx: ToolContext) -> None:
    (root / "ff.txt").write_text("a\x0cb\nc\n")
    result = await read(ctx, "ff.txt")
    assert result.output.splitlines()[-1] == "     2\tc"


async def test_window_is_inclusive(root: Path, ctx: ToolContext) -> None:
    (root / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    result = await read(ctx, "n.txt", 3, 5)
    assert result.output == "     3\tline 3\n     4\tline 4\n     5\tline 5"


async def test_end_line_past_eof_is_clamped(root: Path, ctx: ToolContext) -> None:
    (root / "n.txt").write_text("a\nb\nc\n")
    result = await read(ctx, "n.txt", 2, 99)
    assert result.ok
    assert result.output == "     2\tb\n     3\tc"


async def test_start_line_past_eof_says_how_many_lines(root: Path, ctx: ToolContext) -> None:
    (root / "n.txt").write_text("a\nb\nc\n")
    result = await read(ctx, "n.txt", 10)
    assert not result.ok
    assert "has 3 lines" in result.output


async def test_end_before_start_is_an_error(root: Path, ctx: ToolContext) -> None:
    (root / "n.txt").write_text("a\nb\nc\n")
    result = await read(ctx, "n.txt", 3, 2)
    assert not result.ok


async def test_line_cap_adds_read_on_note(root: Path, ctx: ToolContext) -> None:
    (root / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 5235)))
    result = await read(ctx, "big.txt")
    lines = result.output.splitlines()
    assert len(lines) == 2001
    assert lines[1999] == "  2000\t2000"
    assert lines[-1] == (
        "[showing lines 1-2000 of 5234; call read_file with start_line=2001 to read on]"
    )
    after = await read(ctx, "big.txt", 2001)
    assert after.output.splitlines()[0] == "  2001\t2001"
    assert "start_line=4001" in after.output


async def test_byte_cap_adds_read_on_note(root: Path, ctx: ToolContext) -> None:
    (root / "wide.txt").write_text(("x" * 1000 + "\n") * 500)
    result = await read(ctx, "wide.txt")
    assert len(result.output.encode()) < 110_000
    note = result.output.splitlines()[-1]
    assert note.startswith("[showing lines 1-")
    shown = int(note.split("-")[1].split(" ")[0])
    assert 90 <= shown < 100
    assert f"start_line={shown + 1}" in note


async def test_window_read_in_full_has_no_note(root: Path, ctx: ToolContext) -> None:
    (root / "n.txt").write_text("a\nb\nc\nd\n")
    result = await read(ctx, "n.txt", 1, 2)
    assert "showing" not in result.output


async def test_long_line_is_truncated_with_marker(root: Path, ctx: ToolContext) -> None:
    (root / "min.js").write_text("y" * 5000 + "\nshort\n")
    result = await read(ctx, "min.js")
    first, second = result.output.splitlines()
    assert first.count("y") == 2000
    assert "truncated" in first
    assert "3,000 more characters" in first
    assert second == "     2\tshort"


def test_format_line_right_aligns_numbers() -> None:
    assert format_line(7, "x") == "     7\tx"
    assert format_line(1234567, "x") == "1234567\tx"


async def test_nul_byte_is_refused_as_binary(root: Path, ctx: ToolContext) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0rest")
    result = await read(ctx, "img.png")
    assert not result.ok
    assert "binary" in result.output
    assert "15 bytes" in result.output


async def test_a_latin1_file_is_read_and_says_how(root: Path, ctx: ToolContext) -> None:
    (root / "latin.txt").write_bytes("caf\xe9\nna\xefve\n".encode("latin-1"))
    result = await read(ctx, "latin.txt")
    assert result.ok
    assert result.output.splitlines() == [
        "[latin.txt is not plain UTF-8: Latin-1 (ISO-8859-1); changes are written back in it]",
        "     1\tcafé",
        "     2\tnaïve",
    ]


async def test_utf8_text_is_read(root: Path, ctx: ToolContext) -> None:
    (root / "u.txt").write_text("café ☕\n", encoding="utf-8")
    result = await read(ctx, "u.txt")
    assert result.output == "     1\tcafé ☕"


async def test_directory_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "src").mkdir()
    result = await read(ctx, "src")
    assert not result.ok
    assert "is a directory" in result.output
    assert "list_dir" in result.output


async def test_missing_file_suggests_glob(ctx: ToolContext) -> None:
    result = await read(ctx, "nope.txt")
    assert not result.ok
    assert "does not exist" in result.output
    assert "glob" in result.output


async def test_empty_file_says_so(root: Path, ctx: ToolContext) -> None:
    (root / "empty.txt").write_text("")
    result = await read(ctx, "empty.txt")
    assert result.ok
    assert "empty" in result.output


async def test_whole_file_is_recorded_even_for_a_window(root: Path, ctx: ToolContext) -> None:
    data = b"a\nb\nc\n"
    (root / "n.txt").write_bytes(data)
    await read(ctx, "n.txt", 2, 2)
    path = (root / "n.txt").resolve()
    assert ctx.state.check_unchanged(path, data) is None
    assert ctx.state.check_unchanged(path, b"other") is not None


async def test_failed_read_records_nothing(root: Path, ctx: ToolContext) -> None:
    (root / "bin").write_bytes(b"\0\0")
    await read(ctx, "bin")
    assert ctx.state.ledger.hashes == {}  # type: ignore[attr-defined]


def test_access_is_read_with_relative_path(root: Path, ctx: ToolContext) -> None:
    access = TOOL.access(ReadFileArgs(path=str(root / "src" / "a.py")), ctx)
    assert access.kind == "read"
    assert access.paths == ("src/a.py",)


def test_access_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        with pytest.raises(PathError):
            TOOL.access(ReadFileArgs(path=raw), ctx)


async def test_run_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in [*escaping, "~/secret.txt", "a\0b"]:
        result = await read(ctx, raw)
        assert not result.ok, raw
        assert SECRET not in result.output
    assert ctx.state.ledger.hashes == {}  # type: ignore[attr-defined]


def test_schema_has_exact_arguments() -> None:
    schema = TOOL.schema()
    assert schema["function"]["name"] == "read_file"
    params = schema["function"]["parameters"]
    assert set(params["properties"]) == {"path", "start_line", "end_line", "window"}
    assert params["required"] == ["path"]
    assert all(prop.get("description") for prop in params["properties"].values())
    assert "line" in schema["function"]["description"]
