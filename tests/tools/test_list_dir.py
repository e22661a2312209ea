from __future__ import annotations

from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.list_dir import TOOL, ListDirArgs, human_size


async def list_dir(ctx: ToolContext, path: str | None = None) -> ToolResult:
    return await TOOL.run(ListDirArgs(path=path), ctx)


async def test_dirs_first_then_files_with_sizes(root: Path, ctx: ToolContext) -> None:
    (root / "src").mkdir()
    (root / "Docs").mkdir()
    (root / "b.txt").write_bytes(b"x" * 2048)
    (root / "a.py").write_text("print()\n")
    (root / "current").symlink_to("src")
    result = await list_dir(ctx)
    assert result.ok
    assert result.output.splitlines() == [
        ".: 2 dirs, 2 files, 1 link",
        "dir   Docs/",
        "dir   src/",
        "file  a.py  8 B",
        "file  b.txt  2.0 KB",
        "link  current  -> src",
    ]


async def test_ignored_dirs_are_skipped_and_named(root: Path, ctx: ToolContext) -> None:
    for name in ("node_modules", ".git", "src"):
        (root / name).mkdir()
    (root / "build").write_text("a file named build is listed\n")
    lines = (await list_dir(ctx)).output.splitlines()
    assert "dir   src/" in lines
    assert not any("node_modules/" in line or ".git/" in line for line in lines[1:-1])
    assert "file  build  29 B" in lines
    assert lines[-1] == "[skipped 2 ignored dirs: .git, node_modules]"


async def test_subdirectory_and_empty(root: Path, ctx: ToolContext) -> None:
    (root / "pkg" / "empty").mkdir(parents=True)
    assert (await list_dir(ctx, "pkg")).output == "pkg: 1 dir\ndir   empty/"
    assert (await list_dir(ctx, "pkg/empty")).output == "pkg/empty: empty"


async def test_entries_are_capped(root: Path, ctx: ToolContext) -> None:
    for i in range(510):
        (root / f"f{i:03}").touch()
    lines = (await list_dir(ctx)).output.splitlines()
    assert len(lines) == 502
    assert lines[-1] == "[... 10 more entries not shown; use glob]"


async def test_files_and_missing_paths_are_errors(root: Path, ctx: ToolContext) -> None:
    (root / "a.py").touch()
    file_result = await list_dir(ctx, "a.py")
    assert not file_result.ok
    assert "read_file" in file_result.output
    assert "does not exist" in (await list_dir(ctx, "nope")).output


async def test_paths_outside_the_root_are_refused(
    ctx: ToolContext, outside: Path, escaping: list[str]
) -> None:
    for path in ["..", str(outside), "link_to_outside_dir", "/"]:
        with pytest.raises(PathError):
            TOOL.access(ListDirArgs(path=path), ctx)
        result = await list_dir(ctx, path)
        assert not result.ok
        assert "secret.txt" not in result.output


def test_access_is_read(root: Path, ctx: ToolContext) -> None:
    access = TOOL.access(ListDirArgs(), ctx)
    assert (access.kind, access.paths) == ("read", (".",))


@pytest.mark.parametrize(
    ("size", "text"),
    [(0, "0 B"), (1023, "1023 B"), (1024, "1.0 KB"), (1536, "1.5 KB"), (5 * 1024**2, "5.0 MB")],
)
def test_human_size(size: int, text: str) -> None:
    assert human_size(size) == text
