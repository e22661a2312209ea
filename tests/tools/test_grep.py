from __future__ import annotations

from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.tools import grep as grep_module
from zizou.tools._rg import find_rg
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.grep import TOOL, GrepArgs


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


async def grep(ctx: ToolContext, pattern: str, **kwargs: object) -> ToolResult:
    return await TOOL.run(GrepArgs.model_validate({"pattern": pattern, **kwargs}), ctx)


@pytest.fixture
def code(root: Path) -> Path:
    write(root, "src/app.py", "import os\n\ndef main():\n    return Needle(1)\n")
    write(root, "src/util.py", "def helper(x):\n    return x.needle\n")
    write(root, "README.txt", "needle in a haystack\n")
    return root


def test_the_pinned_rg_is_found() -> None:
    rg = find_rg()
    assert rg is not None
    assert Path(rg).name == "rg"


async def test_regex_lines_are_path_line_text(code: Path, ctx: ToolContext) -> None:
    result = await grep(ctx, r"def \w+\(")
    assert result.ok
    assert result.output.splitlines() == [
        "src/app.py:3:def main():",
        "src/util.py:1:def helper(x):",
    ]


async def test_ignore_case(code: Path, ctx: ToolContext) -> None:
    assert (await grep(ctx, "needle")).output.count("\n") == 1
    lines = (await grep(ctx, "needle", ignore_case=True)).output.splitlines()
    assert lines == [
        "README.txt:1:needle in a haystack",
        "src/app.py:4:    return Needle(1)",
        "src/util.py:2:    return x.needle",
    ]


async def test_fixed_strings_and_bad_regex(code: Path, ctx: ToolContext) -> None:
    result = await grep(ctx, "Needle(", fixed_strings=True)
    assert result.output == "src/app.py:4:    return Needle(1)"
    bad = await grep(ctx, "Needle(")
    assert not bad.ok
    assert "regex parse error" in bad.output
    assert "fixed_strings" in bad.output


async def test_glob_and_path_narrow_the_search(code: Path, ctx: ToolContext) -> None:
    assert (await grep(ctx, "needle", glob="*.txt", ignore_case=True)).output == (
        "README.txt:1:needle in a haystack"
    )
    assert (await grep(ctx, "needle", path="src/util.py")).output == (
        "src/util.py:2:    return x.needle"
    )
    assert (await grep(ctx, "def", path="src")).output.count("\n") == 1


async def test_no_match_says_so(code: Path, ctx: ToolContext) -> None:
    result = await grep(ctx, "nothing_here")
    assert result.ok
    assert result.output == "No matches for 'nothing_here' in the project."


async def test_secret_files_are_never_searched(root: Path, ctx: ToolContext) -> None:
    for name in (
        ".env",
        ".env.local",
        "config/.env.production",
        "server.pem",
        "id_rsa",
        "id_rsa.pub",
    ):
        write(root, name, "needle=hunter2\n")
    write(root, "app.py", "needle = 1\n")
    assert (await grep(ctx, "needle")).output == "app.py:1:needle = 1"
    assert (await grep(ctx, "needle", glob=".env*")).output.startswith("No matches")
    for path in (".env", "config/.env.production", "id_rsa"):
        result = await grep(ctx, "needle", path=path)
        assert not result.ok
        assert "hunter2" not in result.output


async def test_ignored_files_and_dirs_are_skipped(root: Path, ctx: ToolContext) -> None:
    write(root, ".gitignore", "*.log\n")
    write(root, "debug.log", "needle\n")
    write(root, "node_modules/lib/index.js", "needle\n")
    write(root, ".github/workflows/ci.yml", "needle\n")
    assert (await grep(ctx, "needle")).output == ".github/workflows/ci.yml:1:needle"


async def test_output_is_capped_by_lines(root: Path, ctx: ToolContext) -> None:
    write(root, "many.txt", "hit\n" * 150)
    lines = (await grep(ctx, "hit")).output.splitlines()
    assert len(lines) == 101
    assert lines[-1] == "[... 50 more matches not shown; narrow the search]"


async def test_output_is_capped_by_size(root: Path, ctx: ToolContext) -> None:
    write(root, "wide.txt", ("hit " + "x" * 400 + "\n") * 90)
    result = await grep(ctx, "hit")
    assert len(result.output) < 31_000
    assert result.output.endswith("more matches not shown; narrow the search]")


async def test_long_lines_are_previewed(root: Path, ctx: ToolContext) -> None:
    write(root, "min.js", "hit" + "y" * 5_000 + "\n")
    result = await grep(ctx, "hit")
    assert len(result.output) < 1_000


async def test_missing_path(root: Path, ctx: ToolContext) -> None:
    result = await grep(ctx, "x", path="nope")
    assert not result.ok
    assert "does not exist" in result.output


async def test_paths_outside_the_root_are_refused(ctx: ToolContext, escaping: list[str]) -> None:
    for path in [*escaping, "..", "link_to_outside_dir"]:
        args = GrepArgs(pattern="SECRET", path=path)
        with pytest.raises(PathError):
            TOOL.access(args, ctx)
        result = await TOOL.run(args, ctx)
        assert not result.ok
        assert "TOP-SECRET" not in result.output


async def test_symlinked_files_inside_are_not_followed_out(
    root: Path, ctx: ToolContext, escaping: list[str]
) -> None:
    result = await grep(ctx, "TOP-SECRET")
    assert result.output.startswith("No matches")


def test_access_is_read(code: Path, ctx: ToolContext) -> None:
    access = TOOL.access(GrepArgs(pattern="x", path="src/"), ctx)
    assert (access.kind, access.paths) == ("read", ("src",))


async def test_the_first_matches_by_path_are_shown_however_rg_walks(
    root: Path, ctx: ToolContext
) -> None:
    """rg searches on every core and prints in the order it finds; what is shown is the first
    matches by path (each directory's entries in order: `a/` before `a-b/`) and line, the same
    at every run, and the rest are counted."""
    for index in range(60):
        write(root, f"d{index:02}/f.txt", "hit one\nhit two\nhit: a:colon\n")
    write(root, "a/x.txt", "hit a\n")
    write(root, "a-b/x.txt", "hit a-b\n")
    result = await grep(ctx, "hit")
    lines = result.output.splitlines()
    assert lines[:2] == ["a/x.txt:1:hit a", "a-b/x.txt:1:hit a-b"]
    assert lines[2:5] == ["d00/f.txt:1:hit one", "d00/f.txt:2:hit two", "d00/f.txt:3:hit: a:colon"]
    assert lines[100] == "[... 82 more matches not shown; narrow the search]"
    assert [await grep(ctx, "hit") for _ in range(3)] == [result] * 3


async def test_past_the_lines_kept_while_reading_the_first_by_path_still_win(
    root: Path, ctx: ToolContext
) -> None:
    """More matches than are kept while rg prints (so the kept ones are cut as they come, and
    later lines are dropped unread): the lines shown are still the first by path and line."""
    for index in range(300):
        write(root, f"d{index:03}/f.txt", "hit one\nmiss\nhit two\nhit three\n")
    write(root, "z/last.txt", "hit z\n")
    write(root, "a/first.txt", "hit a\n")
    lines = (await grep(ctx, "hit")).output.splitlines()
    expected = ["a/first.txt:1:hit a"]
    for index in range(33):
        expected += [
            f"d{index:03}/f.txt:{n}:hit {word}"
            for n, word in ((1, "one"), (3, "two"), (4, "three"))
        ]
    assert lines[:100] == expected
    assert lines[100] == "[... 802 more matches not shown; narrow the search]"


async def test_a_file_given_whole_that_is_binary_is_said_so(root: Path, ctx: ToolContext) -> None:
    (root / "blob.bin").write_bytes(b"needle\0 more needle\n")
    result = await grep(ctx, "needle", path="blob.bin")
    assert result.ok
    assert result.output.startswith("blob.bin: binary file matches")


async def test_matches_read_in_any_pieces_give_the_same_lines(root: Path, ctx: ToolContext) -> None:
    """rg's output comes in pieces cut anywhere (in a path, between a file's lines, in the empty
    line between two files): read a byte at a time it gives what it gives read whole."""
    for index in range(40):
        write(root, f"d{index:02}/f.txt", "hit one\nmiss\n\nhit: two\n" * 3)
    write(root, "many.txt", "hit\n" * 130)
    whole = await grep(ctx, "hit")
    feeds: list[bytes] = []
    original = grep_module._Matches.feed

    def by_bytes(self: grep_module._Matches, chunk: bytes) -> None:
        feeds.append(chunk)
        for at in range(len(chunk)):
            original(self, chunk[at : at + 1])

    grep_module._Matches.feed = by_bytes  # type: ignore[method-assign]
    try:
        pieces = await grep(ctx, "hit")
    finally:
        grep_module._Matches.feed = original  # type: ignore[method-assign]
    assert sum(map(len, feeds)) > 1_000
    assert pieces == whole
    assert whole.output.splitlines()[:3] == [
        "d00/f.txt:1:hit one",
        "d00/f.txt:4:hit: two",
        "d00/f.txt:5:hit one",
    ]
    assert whole.output.endswith("[... 270 more matches not shown; narrow the search]")
