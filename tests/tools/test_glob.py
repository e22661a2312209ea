from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.ignore import project_files
from zizou.tools.base import ToolContext
from zizou.tools.glob import TOOL, GlobArgs, glob_to_regex


def write(root: Path, rel: str, text: str = "x\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


async def glob(ctx: ToolContext, pattern: str, path: str | None = None) -> list[str]:
    result = await TOOL.run(GlobArgs(pattern=pattern, path=path), ctx)
    assert result.ok, result.output
    if result.output.startswith("No files match"):
        return []
    return sorted(result.output.splitlines())


def make_tree(root: Path) -> None:
    write(root, ".gitignore", "*.log\nsecret_dir/\n")
    for rel in ("a.py", "src/b.py", "src/deep/c.py", "x.log", "secret_dir/s.py"):
        write(root, rel)
    write(root, "node_modules/pkg/d.py")
    write(root, "build/gen.py")


EXPECTED_PY = ["a.py", "src/b.py", "src/deep/c.py"]


async def test_git_repo_uses_git_view(root: Path, ctx: ToolContext) -> None:
    make_tree(root)
    git(root, "init", "-q")
    git(root, "add", "a.py", "src/b.py")  # tracked; the rest is untracked but not ignored
    assert await glob(ctx, "*.py") == EXPECTED_PY
    assert await glob(ctx, "*.log") == []


async def test_git_lists_tracked_files_even_if_now_ignored(root: Path, ctx: ToolContext) -> None:
    write(root, "kept.log")
    git(root, "init", "-q")
    git(root, "add", "kept.log")
    write(root, ".gitignore", "*.log\n")
    write(root, "new.log")
    assert await glob(ctx, "*.log") == ["kept.log"]


async def test_plain_directory_honours_gitignore_files(root: Path, ctx: ToolContext) -> None:
    make_tree(root)
    write(root, "src/.gitignore", "!keep.log\ndeep/\n")
    write(root, "src/keep.log")
    assert await glob(ctx, "*.py") == ["a.py", "src/b.py"]
    assert await glob(ctx, "*.log") == ["src/keep.log"]


def test_walk_reads_gitignores_above_the_base(root: Path) -> None:
    write(root, ".gitignore", "generated_*\n")
    write(root, "pkg/sub/generated_x.py")
    write(root, "pkg/sub/real.py")
    assert project_files(root, root / "pkg" / "sub") == ["pkg/sub/real.py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("src/**/*.py", ["src/b.py", "src/deep/c.py"]),
        ("src/*.py", ["src/b.py"]),
        ("**/c.py", ["src/deep/c.py"]),
        ("*.{py,txt}", sorted([*EXPECTED_PY, "notes.txt"])),
        ("./src/deep/*", ["src/deep/c.py"]),
    ],
)
async def test_pattern_forms(
    root: Path, ctx: ToolContext, pattern: str, expected: list[str]
) -> None:
    make_tree(root)
    write(root, "notes.txt")
    assert await glob(ctx, pattern) == expected


async def test_path_narrows_and_results_stay_root_relative(root: Path, ctx: ToolContext) -> None:
    make_tree(root)
    assert await glob(ctx, "*.py", "src/deep") == ["src/deep/c.py"]
    assert await glob(ctx, "deep/*.py", "src") == ["src/deep/c.py"]


async def test_naming_an_ignored_dir_searches_it(root: Path, ctx: ToolContext) -> None:
    make_tree(root)
    assert await glob(ctx, "*.py", "build") == ["build/gen.py"]


async def test_newest_first(root: Path, ctx: ToolContext) -> None:
    for age, name in enumerate(["new.py", "mid.py", "old.py"]):
        path = write(root, name)
        os.utime(path, (1_000_000 - age * 100, 1_000_000 - age * 100))
    result = await TOOL.run(GlobArgs(pattern="*.py"), ctx)
    assert result.output.splitlines() == ["new.py", "mid.py", "old.py"]


async def test_results_are_capped_with_a_note(root: Path, ctx: ToolContext) -> None:
    for i in range(205):
        write(root, f"f{i:03}.txt")
    lines = (await TOOL.run(GlobArgs(pattern="*.txt"), ctx)).output.splitlines()
    assert len(lines) == 201
    assert lines[-1] == "[... 5 more not shown; narrow the pattern]"


async def test_no_match_says_so(root: Path, ctx: ToolContext) -> None:
    result = await TOOL.run(GlobArgs(pattern="*.rs"), ctx)
    assert result.ok
    assert result.output.startswith("No files match '*.rs' in the project")


async def test_path_must_be_a_directory(root: Path, ctx: ToolContext) -> None:
    write(root, "a.py")
    assert not (await TOOL.run(GlobArgs(pattern="*", path="a.py"), ctx)).ok
    assert not (await TOOL.run(GlobArgs(pattern="*", path="missing"), ctx)).ok


async def test_access_is_read_of_the_resolved_path(root: Path, ctx: ToolContext) -> None:
    (root / "src").mkdir()
    access = TOOL.access(GlobArgs(pattern="*", path="src/../src"), ctx)
    assert (access.kind, access.paths) == ("read", ("src",))


async def test_paths_outside_the_root_are_refused(
    ctx: ToolContext, outside: Path, escaping: list[str]
) -> None:
    for path in ["..", str(outside), "link_to_outside_dir", "/"]:
        args = GlobArgs(pattern="*", path=path)
        with pytest.raises(PathError):
            TOOL.access(args, ctx)
        result = await TOOL.run(args, ctx)
        assert not result.ok
        assert "secret.txt" not in result.output


@pytest.mark.parametrize(
    ("pattern", "subject", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "a.pyc", False),
        ("src/*.py", "src/a/b.py", False),
        ("src/**/*.py", "src/b.py", True),
        ("src/**", "src/a/b", True),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[!x]y", "xy", False),
        ("[a-c]y", "by", True),
        ("*.{js,jsx}", "x.jsx", True),
        ("{a,b{c,d}}.txt", "bd.txt", True),
        ("a+b(1).txt", "a+b(1).txt", True),
    ],
)
def test_glob_to_regex(pattern: str, subject: str, matches: bool) -> None:
    assert bool(glob_to_regex(pattern).match(subject)) is matches


def test_a_fifo_or_a_link_out_as_gitignore_is_read_as_no_rules(
    tmp_path: Path, project: Path
) -> None:
    """The walk outside git reads every `.gitignore` on the way: a FIFO planted there must not
    hang it, and a link out of the project is not read."""
    outside = write(tmp_path, "outside/rules", "*.py\n")
    write(project, "a.py")
    write(project, "sub/b.py")
    os.mkfifo(project / ".gitignore")
    (project / "sub" / ".gitignore").symlink_to(outside)

    assert project_files(project, project) == [".gitignore", "a.py", "sub/.gitignore", "sub/b.py"]
