"""Every file tool against a repository prepared to help a hostile model out of the root.

`loop -> loop` makes a non-strict resolver give up, and `lnk -> ../outside` is where it would
then lead: each tool must refuse `loop/../lnk/...` (in `access` and in `run`) and leave the
outside untouched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from zizou.agent.permissions import is_protected
from zizou.agent.workspace_layer import WorkspaceLayer
from zizou.contracts.state import SessionState
from zizou.contracts.windows import WHOLE_FILE
from zizou.errors import PathError
from zizou.tools.add_context import TOOL as ADD_CONTEXT
from zizou.tools.add_context import AddContextArgs
from zizou.tools.base import Tool, ToolArgs, ToolContext
from zizou.tools.edit_file import TOOL as EDIT_FILE
from zizou.tools.edit_file import EditFileArgs
from zizou.tools.glob import TOOL as GLOB
from zizou.tools.glob import GlobArgs
from zizou.tools.grep import TOOL as GREP
from zizou.tools.grep import GrepArgs
from zizou.tools.list_dir import TOOL as LIST_DIR
from zizou.tools.list_dir import ListDirArgs
from zizou.tools.open_file import OpenFile, OpenFileArgs
from zizou.tools.open_in_workspace import TOOL as OPEN_IN_WORKSPACE
from zizou.tools.open_in_workspace import OpenArgs
from zizou.tools.read_file import TOOL as READ_FILE
from zizou.tools.read_file import ReadFileArgs
from zizou.tools.replace_window import TOOL as REPLACE_WINDOW
from zizou.tools.replace_window import ReplaceWindowArgs
from zizou.tools.repo_map import TOOL as REPO_MAP
from zizou.tools.repo_map import RepoMapArgs
from zizou.tools.write_file import TOOL as WRITE_FILE
from zizou.tools.write_file import WriteFileArgs

from .conftest import SECRET


@pytest.fixture
def hostile(root: Path, outside: Path) -> Path:
    (root / "loop").symlink_to("loop")
    (root / "lnk").symlink_to("../outside")
    (outside / ".git" / "hooks").mkdir(parents=True)
    return outside


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


CALLS: list[tuple[Tool[Any], ToolArgs]] = [
    (READ_FILE, ReadFileArgs(path="loop/../lnk/secret.txt")),
    (WRITE_FILE, WriteFileArgs(path="loop/../lnk/secret.txt", content="pwned\n")),
    (WRITE_FILE, WriteFileArgs(path="loop/../lnk/new.txt", content="pwned\n")),
    (WRITE_FILE, WriteFileArgs(path="loop/../lnk/.git/hooks/pre-commit", content="#!/bin/sh\n")),
    (
        EDIT_FILE,
        EditFileArgs(path="loop/../lnk/secret.txt", old_string="TOP", new_string="pwned"),
    ),
    (LIST_DIR, ListDirArgs(path="loop/../lnk")),
    (GREP, GrepArgs(pattern="TOP-SECRET", path="loop/../lnk")),
    (GREP, GrepArgs(pattern="TOP-SECRET", path="loop/../lnk/secret.txt")),
    (GLOB, GlobArgs(pattern="*", path="loop/../lnk")),
    (ADD_CONTEXT, AddContextArgs(path="loop/../lnk/secret.txt")),
    (OPEN_IN_WORKSPACE, OpenArgs(path="loop/../lnk/secret.txt")),
    (
        REPLACE_WINDOW,
        ReplaceWindowArgs.model_validate(
            {"path": "loop/../lnk/secret.txt", "window": {"start_line": 1}, "content": "pwned"}
        ),
    ),
    (REPO_MAP, RepoMapArgs(paths=["loop/../lnk"])),
    (OpenFile(opener=["true"]), OpenFileArgs(path="loop/../lnk/secret.txt")),
]


@pytest.mark.parametrize(("tool", "args"), CALLS, ids=lambda c: getattr(c, "name", ""))
async def test_loop_then_link_out_is_refused_and_nothing_outside_changes(
    ctx: ToolContext, hostile: Path, tool: Tool[Any], args: ToolArgs
) -> None:
    before = snapshot(hostile)
    with pytest.raises(PathError, match="symlink loop at loop/"):
        tool.access(args, ctx)
    result = await tool.run(args, ctx)
    assert not result.ok
    assert "symlink loop at loop/" in result.output
    assert SECRET not in result.output
    assert snapshot(hostile) == before
    assert isinstance(ctx.state, SessionState)
    assert ctx.state.ledger.hashes == {}
    assert ctx.state.windows == ()


@pytest.mark.parametrize("raw", ["lnk/secret.txt", "src/../lnk/secret.txt", "nope/../lnk/x"])
async def test_a_link_out_is_named_in_the_refusal(
    ctx: ToolContext, hostile: Path, raw: str
) -> None:
    result = await READ_FILE.run(ReadFileArgs(path=raw), ctx)
    assert not result.ok and "lnk points outside the project" in result.output


async def test_a_hook_reached_through_a_link_inside_is_seen_as_the_hook(
    root: Path, ctx: ToolContext, hostile: Path
) -> None:
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "hk").symlink_to(".git/hooks")
    args = WriteFileArgs(path="loop/../hk/pre-commit", content="x")
    with pytest.raises(PathError):
        WRITE_FILE.access(args, ctx)
    access = WRITE_FILE.access(WriteFileArgs(path="hk/pre-commit", content="x"), ctx)
    assert access.paths == (".git/hooks/pre-commit",)
    assert is_protected(access.paths[0])  # so the permission layer asks, whatever the alias


def shown(root: Path, state: SessionState) -> str:
    return WorkspaceLayer(root, state).render(32_000).text


async def test_a_window_whose_file_becomes_a_link_out_shows_an_error_stub(
    root: Path, outside: Path
) -> None:
    (root / "notes.txt").write_text("mine\n")
    state = SessionState()
    state.open_window("notes.txt", WHOLE_FILE)
    layer = WorkspaceLayer(root, state)
    assert layer.render(32_000).text == "## notes.txt · w1 · lines 1-1\n     1\tmine"
    (root / "notes.txt").unlink()
    (root / "notes.txt").symlink_to(outside / "secret.txt")
    stub = layer.render(32_000).text
    assert SECRET not in stub
    assert stub.startswith("## notes.txt · w1 · whole file · ") and "\n" not in stub
    assert "outside the project" in stub
    assert [w.status for w in state.windows] == ["missing"]


async def test_a_window_inside_a_directory_swapped_for_a_link_out_shows_an_error_stub(
    root: Path, outside: Path
) -> None:
    (root / "docs").mkdir()
    (outside / "a.txt").write_text(SECRET + "\n")
    (root / "docs" / "a.txt").write_text("mine\n")
    state = SessionState()
    state.open_window("docs/a.txt", WHOLE_FILE)
    assert "mine" in shown(root, state)
    (root / "docs" / "a.txt").unlink()
    (root / "docs").rmdir()
    (root / "docs").symlink_to(outside)
    stub = shown(root, state)
    assert SECRET not in stub and "outside the project" in stub
    assert stub.startswith("## docs/a.txt · w1 · whole file · ") and "\n" not in stub


async def test_a_window_on_a_path_outside_never_shows_its_content(
    root: Path, outside: Path
) -> None:
    (root / "link").symlink_to(outside / "secret.txt")
    state = SessionState()
    for raw in ["link", "../outside/secret.txt", str(outside / "secret.txt")]:
        state.open_window(raw, WHOLE_FILE, by="session")  # a damaged session file, say
    stubs = shown(root, state).split("\n\n")
    assert len(stubs) == 3
    for stub in stubs:
        assert SECRET not in stub
        assert "outside the project" in stub and "\n" not in stub
    assert state.ledger.hashes == {}


@pytest.mark.parametrize("name", [".ENV", ".Env.Local", "ID_RSA", "Id_Ed25519", "Server.PEM"])
async def test_grep_never_searches_secret_names_in_any_case(
    root: Path, ctx: ToolContext, name: str
) -> None:
    (root / name).write_text("needle=hunter2\n")
    (root / "app.py").write_text("needle = 1\n")
    assert (await GREP.run(GrepArgs(pattern="needle"), ctx)).output == "app.py:1:needle = 1"
    whitelisted = await GREP.run(GrepArgs(pattern="needle", glob=name), ctx)
    assert "hunter2" not in whitelisted.output


async def test_grep_paths_stay_root_relative_for_a_subdirectory_and_a_file(
    root: Path, ctx: ToolContext
) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "x.py").write_text("needle\n")
    (root / ".gitignore").write_text("ignored.py\n")
    (root / "src" / "ignored.py").write_text("needle\n")
    in_dir = await GREP.run(GrepArgs(pattern="needle", path="src"), ctx)
    assert in_dir.output == "src/deep/x.py:1:needle"
    in_file = await GREP.run(GrepArgs(pattern="needle", path="src/deep/x.py"), ctx)
    assert in_file.output == "src/deep/x.py:1:needle"


async def test_list_dir_shows_links_without_following_them(
    root: Path, ctx: ToolContext, hostile: Path
) -> None:
    result = await LIST_DIR.run(ListDirArgs(), ctx)
    assert "link  lnk  -> ../outside" in result.output
    assert "link  loop  -> loop" in result.output
    assert SECRET not in result.output
