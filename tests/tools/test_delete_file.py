"""delete_file on real temp dirs: the bytes go to .zizou/trash/, and every path it must not
delete (outside the root, through a link, a directory, git's or zizou's own files) is refused
before anyone is asked, with nothing changed inside the project or out of it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules
from zizou.contracts.protocols import ToolCall
from zizou.errors import PathError
from zizou.session.unattended import HeadlessApprover
from zizou.tools import ToolResult, default_registry
from zizou.tools.base import ToolContext
from zizou.tools.delete_file import TOOL, DeleteFileArgs

from .conftest import SECRET


async def delete(ctx: ToolContext, path: str) -> ToolResult:
    return await TOOL.run(DeleteFileArgs(path=path), ctx)


def snapshot(directory: Path) -> dict[str, str]:
    """Every entry under `directory`, with a file's bytes or a link's target."""
    seen = {}
    for path in sorted(directory.rglob("*")):
        rel = str(path.relative_to(directory))
        if path.is_symlink():
            seen[rel] = f"-> {os.readlink(path)}"
        elif path.is_file():
            seen[rel] = path.read_text()
        else:
            seen[rel] = "dir"
    return seen


def kept_at(root: Path, result: ToolResult) -> Path:
    """The trash path the result names."""
    assert result.ok, result.output
    [where] = [word for word in result.output.split() if word.startswith(".zizou/trash/")]
    return root / where


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


async def test_the_bytes_are_moved_into_a_private_trash_batch(root: Path, ctx: ToolContext) -> None:
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "old.py").write_bytes(b"print('bye')\n\x00\xff")
    os.chmod(root / "src" / "pkg" / "old.py", 0o640)
    result = await delete(ctx, "src/pkg/old.py")
    assert not (root / "src" / "pkg" / "old.py").exists()
    assert (root / "src" / "pkg").is_dir()  # only the file goes
    kept = kept_at(root, result)
    assert kept.read_bytes() == b"print('bye')\n\x00\xff" and mode(kept) == 0o640
    assert result.output.startswith("Deleted src/pkg/old.py (15 bytes); its bytes are kept in")
    batch = kept.parent.parent.parent
    assert kept.relative_to(batch).as_posix() == "src/pkg/old.py"
    assert batch.parent == root / ".zizou" / "trash"
    assert mode(root / ".zizou" / "trash") == mode(batch) == mode(kept.parent) == 0o700
    assert (root / ".zizou" / ".gitignore").read_text() == "*\n"


async def test_each_delete_gets_its_own_batch(root: Path, ctx: ToolContext) -> None:
    for name in ("a.txt", "b.txt"):
        (root / name).write_text(name)
    first = kept_at(root, await delete(ctx, "a.txt"))
    (root / "a.txt").write_text("again")
    second = kept_at(root, await delete(ctx, "a.txt"))
    assert first.parent != second.parent
    assert (first.read_text(), second.read_text()) == ("a.txt", "again")


async def test_a_path_through_a_link_inside_the_project_deletes_the_real_file(
    root: Path, ctx: ToolContext
) -> None:
    (root / "real").mkdir()
    (root / "real" / "f.txt").write_text("x")
    (root / "alias").symlink_to("real")
    access = TOOL.access(DeleteFileArgs(path="alias/f.txt"), ctx)
    access.close()
    assert (access.kind, access.paths) == ("delete", ("real/f.txt",))
    kept = kept_at(root, await delete(ctx, "alias/f.txt"))
    assert kept.as_posix().endswith("/real/f.txt") and not (root / "real" / "f.txt").exists()


async def test_an_absolute_path_inside_the_project_is_deleted(root: Path, ctx: ToolContext) -> None:
    (root / "abs.txt").write_text("x")
    assert kept_at(root, await delete(ctx, str(root / "abs.txt"))).read_text() == "x"


@pytest.fixture
def prepared(root: Path, outside: Path) -> Path:
    """A project holding everything delete_file must refuse."""
    (root / "dir").mkdir()
    (root / "dir" / "inner.txt").write_text("inner")
    (root / "target.txt").write_text("target")
    (root / "inner_link").symlink_to("target.txt")
    (root / "dangling").symlink_to("nowhere.txt")
    (root / "to_secret").symlink_to(outside / "secret.txt")
    (root / "to_outside").symlink_to("../outside")
    (root / "loop").symlink_to("loop")
    for git in (root / ".git", root / "vendor" / "lib" / ".git"):
        git.mkdir(parents=True)
        (git / "config").write_text("[core]\n")
    (root / ".zizou").mkdir()
    (root / ".zizou" / "info.json").write_text("{}")
    os.mkfifo(root / "fifo")
    return root


@pytest.mark.parametrize(
    ("path", "fragment"),
    [
        ("../outside/secret.txt", "outside the project root"),
        ("{outside}/secret.txt", "outside the project root"),
        ("/etc/passwd", "outside the project root"),
        ("to_secret", "points outside the project root"),
        ("to_outside/secret.txt", "points outside the project root"),
        ("loop/../to_outside/secret.txt", "symlink loop"),
        ("dir/../../outside/secret.txt", "outside the project root"),
        ("inner_link", "is a symbolic link (to target.txt)"),
        ("dangling", "is a symbolic link (to nowhere.txt)"),
        ("dir", "dir is a directory"),
        ("dir/", "dir is a directory"),
        (".", "the project root"),
        ("missing.txt", "missing.txt does not exist"),
        ("fifo", "not a regular file"),
        (".git/config", "inside a .git directory"),
        (".GIT/config", "inside a .git directory"),
        ("vendor/lib/.git/config", "inside a .git directory"),
        (".git", "inside a .git directory"),
        (".zizou/info.json", "zizou's own state"),
        ("~/.bashrc", "`~` is not expanded"),
    ],
)
async def test_what_it_must_not_delete_is_refused_before_asking(
    prepared: Path, outside: Path, ctx: ToolContext, path: str, fragment: str
) -> None:
    path = path.format(outside=outside)
    before, outside_before = snapshot(prepared), snapshot(outside)
    with pytest.raises(PathError) as refused:
        TOOL.access(DeleteFileArgs(path=path), ctx)
    assert fragment in str(refused.value)
    result = await delete(ctx, path)
    assert not result.ok and fragment in result.output
    assert snapshot(prepared) == before and snapshot(outside) == outside_before
    assert (outside / "secret.txt").read_text() == SECRET + "\n"


async def test_a_symlinked_zizou_dir_is_not_written_through(
    root: Path, outside: Path, ctx: ToolContext
) -> None:
    (root / ".zizou").symlink_to(outside, target_is_directory=True)
    (root / "a.txt").write_text("stays")
    result = await delete(ctx, "a.txt")
    assert not result.ok and "nothing was deleted" in result.output
    assert (root / "a.txt").read_text() == "stays"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


async def test_a_symlinked_trash_dir_is_not_written_through(
    root: Path, outside: Path, ctx: ToolContext
) -> None:
    (root / ".zizou").mkdir()
    (root / ".zizou" / "trash").symlink_to(outside, target_is_directory=True)
    (root / "a.txt").write_text("stays")
    result = await delete(ctx, "a.txt")
    assert not result.ok and ".zizou/trash" in result.output and "symbolic link" in result.output
    assert (root / "a.txt").read_text() == "stays"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


async def test_a_directory_moved_after_approval_deletes_nothing(
    root: Path, ctx: ToolContext
) -> None:
    (root / "a").mkdir()
    (root / "a" / "x.txt").write_text("approved")
    access = TOOL.access(DeleteFileArgs(path="a/x.txt"), ctx)
    try:
        os.rename(root / "a", root / "b")  # the handle holds this directory, now named b
        (root / "a").mkdir()
        (root / "a" / "x.txt").write_text("a new file at the old path")
        result = await TOOL.execute(DeleteFileArgs(path="a/x.txt"), access, ctx)
    finally:
        access.close()
    assert not result.ok and "changed while zizou was using it" in result.output
    assert (root / "b" / "x.txt").read_text() == "approved"
    assert (root / "a" / "x.txt").read_text() == "a new file at the old path"
    assert not (root / ".zizou" / "trash").exists()


async def test_a_directory_swapped_for_a_link_after_approval_is_not_followed(
    root: Path, outside: Path, ctx: ToolContext
) -> None:
    (root / "a").mkdir()
    (root / "a" / "secret.txt").write_text("approved")
    access = TOOL.access(DeleteFileArgs(path="a/secret.txt"), ctx)
    try:
        os.rename(root / "a", root / "a_before")
        (root / "a").symlink_to(outside, target_is_directory=True)
        result = await TOOL.execute(DeleteFileArgs(path="a/secret.txt"), access, ctx)
    finally:
        access.close()
    assert not result.ok and "nothing was deleted" in result.output
    assert (outside / "secret.txt").read_text() == SECRET + "\n"
    assert (root / "a_before" / "secret.txt").read_text() == "approved"


async def test_the_preview_gives_the_size_and_where_the_bytes_go(
    root: Path, ctx: ToolContext
) -> None:
    (root / "a.txt").write_text("12345")
    args = DeleteFileArgs(path="a.txt")
    access = TOOL.access(args, ctx)
    try:
        assert TOOL.preview(args, access, ctx) == (
            "a.txt (5 bytes) is moved to .zizou/trash/, where it can be restored from"
        )
    finally:
        access.close()


async def run_call(root: Path, rules: Rules, path: str) -> ToolResult:
    runner = CallRunner(
        default_registry(), ToolContext(root=root), CallGates.of(HeadlessApprover(), rules)
    )
    call = ToolCall("call_1", "delete_file", f'{{"path": "{path}"}}')
    items = [item async for item in runner.run(runner.parse(call))]
    result = items[-1]
    assert isinstance(result, ToolResult)
    return result


async def test_headless_refuses_unless_allowed_and_names_the_flag(root: Path) -> None:
    (root / "a.txt").write_text("x")
    refused = await run_call(root, Rules(), "a.txt")
    assert not refused.ok and "--allow delete_file" in refused.output
    assert (root / "a.txt").exists()
    assert kept_at(root, await run_call(root, Rules(frozenset({"delete_file"})), "a.txt"))
    assert not (root / "a.txt").exists()


async def test_a_protected_file_is_refused_headless_even_under_yes(root: Path) -> None:
    (root / ".env").write_text("TOKEN=1\n")
    result = await run_call(root, Rules(frozenset({"delete_file"}), yes=True), ".env")
    assert not result.ok and "without a person approving it" in result.output
    assert (root / ".env").read_text() == "TOKEN=1\n"
