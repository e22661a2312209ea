from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.read_file import TOOL as READ
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.write_file import TOOL, WriteFileArgs

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"


async def write(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await TOOL.run(WriteFileArgs(path=path, content=content), ctx)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_creates_file_and_parent_dirs(root: Path, ctx: ToolContext) -> None:
    result = await write(ctx, "a/b/c.txt", "one\ntwo\n")
    assert result.ok
    assert (root / "a" / "b" / "c.txt").read_text() == "one\ntwo\n"
    assert result.output.startswith("Created a/b/c.txt")
    assert "2 lines" in result.output
    assert "8 bytes" in result.output
    assert mode(root / "a" / "b" / "c.txt") == 0o644


async def test_new_file_diff_is_from_dev_null(ctx: ToolContext) -> None:
    result = await write(ctx, "n.txt", "hello\n")
    assert result.diff is not None
    assert result.diff.splitlines()[:2] == ["--- /dev/null", "+++ b/n.txt"]
    assert "+hello" in result.diff.splitlines()


async def test_overwrite_reports_and_diffs(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_text("old\nsame\n")
    result = await write(ctx, "f.txt", "new\nsame\n")
    assert result.ok
    assert result.output.startswith("Overwrote f.txt")
    assert (root / "f.txt").read_text() == "new\nsame\n"
    assert result.diff is not None
    lines = result.diff.splitlines()
    assert lines[:2] == ["--- a/f.txt", "+++ b/f.txt"]
    assert "-old" in lines
    assert "+new" in lines


async def test_missing_final_newline_is_marked_in_diff(ctx: ToolContext) -> None:
    result = await write(ctx, "f.txt", "no newline")
    assert result.diff is not None
    assert result.diff.endswith("+no newline\n\\ No newline at end of file\n")


async def test_crlf_file_stays_crlf(root: Path, ctx: ToolContext) -> None:
    (root / "win.txt").write_bytes(b"a\r\nb\r\n")
    result = await write(ctx, "win.txt", "x\ny\nz\n")
    assert result.ok
    assert (root / "win.txt").read_bytes() == b"x\r\ny\r\nz\r\n"


async def test_lf_file_stays_lf(root: Path, ctx: ToolContext) -> None:
    (root / "unix.txt").write_bytes(b"a\nb\n")
    await write(ctx, "unix.txt", "x\ny\n")
    assert (root / "unix.txt").read_bytes() == b"x\ny\n"


async def test_crlf_content_in_crlf_file_is_not_doubled(root: Path, ctx: ToolContext) -> None:
    (root / "win.txt").write_bytes(b"a\r\n")
    await write(ctx, "win.txt", "x\r\ny\n")
    assert (root / "win.txt").read_bytes() == b"x\r\ny\r\n"


async def test_mode_is_kept(root: Path, ctx: ToolContext) -> None:
    script = root / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o755)
    await write(ctx, "run.sh", "echo bye\n")
    assert mode(script) == 0o755
    assert script.read_text() == "echo bye\n"


async def test_no_temp_files_left_after_success(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_text("old\n")
    await write(ctx, "f.txt", "new\n")
    await write(ctx, "g.txt", "new\n")
    assert sorted(os.listdir(root)) == ["f.txt", "g.txt"]


async def test_failed_replace_leaves_old_file_and_no_temp(
    root: Path, ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "f.txt").write_text("old\n")

    def broken_replace(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    result = await write(ctx, "f.txt", "new\n")
    monkeypatch.undo()
    assert not result.ok
    assert "No space left on device" in result.output
    assert (root / "f.txt").read_text() == "old\n"
    assert os.listdir(root) == ["f.txt"]


async def test_write_is_recorded_so_edit_may_follow(root: Path, ctx: ToolContext) -> None:
    (root / "win.txt").write_bytes(b"a\r\n")
    await write(ctx, "win.txt", "b\n")
    path = (root / "win.txt").resolve()
    assert ctx.state.check_unchanged(path, b"b\r\n") is None


async def test_unchanged_content_says_so(root: Path, ctx: ToolContext) -> None:
    (root / "f.txt").write_text("same\n")
    result = await write(ctx, "f.txt", "same\n")
    assert result.ok
    assert "nothing changed" in result.output


async def test_directory_is_refused(root: Path, ctx: ToolContext) -> None:
    (root / "src").mkdir()
    result = await write(ctx, "src", "x")
    assert not result.ok
    assert "is a directory" in result.output
    assert (root / "src").is_dir()


async def test_parent_that_is_a_file_is_an_error(root: Path, ctx: ToolContext) -> None:
    (root / "plain").write_text("x\n")
    result = await write(ctx, "plain/child.txt", "y")
    assert not result.ok
    assert "plain is not a directory" in result.output


async def test_symlink_inside_writes_through_to_target(root: Path, ctx: ToolContext) -> None:
    (root / "real.txt").write_text("old\n")
    (root / "alias.txt").symlink_to(root / "real.txt")
    await write(ctx, "alias.txt", "new\n")
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


def test_access_is_write_with_relative_path(ctx: ToolContext) -> None:
    access = TOOL.access(WriteFileArgs(path="./x/y.txt", content=""), ctx)
    assert access.kind == "write"
    assert access.paths == ("x/y.txt",)


def test_access_refuses_paths_outside(ctx: ToolContext, escaping: list[str]) -> None:
    for raw in escaping:
        with pytest.raises(PathError):
            TOOL.access(WriteFileArgs(path=raw, content="pwned"), ctx)


async def test_run_refuses_paths_outside(
    ctx: ToolContext, outside: Path, escaping: list[str]
) -> None:
    for raw in [*escaping, "../outside/new.txt", "~/x"]:
        result = await write(ctx, raw, "pwned")
        assert not result.ok, raw
        assert SECRET not in result.output
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert sorted(os.listdir(outside)) == ["secret.txt"]


async def test_written_file_reads_back(ctx: ToolContext) -> None:
    await write(ctx, "r.txt", "alpha\nbeta\n")
    result = await READ.run(ReadFileArgs(path="r.txt"), ctx)
    assert result.output == "     1\talpha\n     2\tbeta"


def test_schema_has_exact_arguments() -> None:
    params = TOOL.schema()["function"]["parameters"]
    assert TOOL.schema()["function"]["name"] == "write_file"
    assert set(params["properties"]) == {"path", "content"}
    assert sorted(params["required"]) == ["content", "path"]
    assert params["additionalProperties"] is False
