from __future__ import annotations

import os
from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.tools.base import ToolContext
from zizou.tools.open_file import OpenFile, OpenFileArgs


def fake_opener(tmp_path: Path, exit_code: int = 0) -> tuple[OpenFile, Path]:
    """An OpenFile whose opener is a script that records the path it was asked to open."""
    record = tmp_path / "opened.txt"
    script = tmp_path / "fake-open"
    script.write_text(f'#!/bin/sh\nprintf "%s" "$1" > "{record}"\nexit {exit_code}\n')
    script.chmod(0o755)
    return OpenFile(opener=[str(script)]), record


async def test_opens_the_resolved_file(root: Path, ctx: ToolContext, tmp_path: Path) -> None:
    tool, record = fake_opener(tmp_path)
    (root / "report.html").write_text("<p>hi</p>")
    result = await tool.run(OpenFileArgs(path="report.html"), ctx)
    assert result.ok, result.output
    assert result.output == "Opened report.html in the default application."
    assert record.read_text() == os.path.realpath(root / "report.html")


async def test_a_failing_opener_is_reported(root: Path, ctx: ToolContext, tmp_path: Path) -> None:
    tool, _ = fake_opener(tmp_path, exit_code=3)
    (root / "a.png").touch()
    result = await tool.run(OpenFileArgs(path="a.png"), ctx)
    assert not result.ok
    assert "exit code 3" in result.output


async def test_a_missing_opener_is_a_clear_error(root: Path, ctx: ToolContext) -> None:
    (root / "a.png").touch()
    result = await OpenFile(opener=["/nonexistent/xdg-open"]).run(OpenFileArgs(path="a.png"), ctx)
    assert not result.ok
    assert "could not run /nonexistent/xdg-open" in result.output


async def test_a_missing_file_opens_nothing(ctx: ToolContext, tmp_path: Path) -> None:
    tool, record = fake_opener(tmp_path)
    result = await tool.run(OpenFileArgs(path="nope.html"), ctx)
    assert not result.ok
    assert "does not exist" in result.output
    assert not record.exists()


async def test_paths_outside_the_root_are_refused(
    ctx: ToolContext, tmp_path: Path, escaping: list[str]
) -> None:
    tool, record = fake_opener(tmp_path)
    for path in escaping:
        with pytest.raises(PathError):
            tool.access(OpenFileArgs(path=path), ctx)
        assert not (await tool.run(OpenFileArgs(path=path), ctx)).ok
    assert not record.exists()


def test_access_asks_to_open(root: Path, ctx: ToolContext) -> None:
    access = OpenFile().access(OpenFileArgs(path="./docs/../index.html"), ctx)
    assert (access.kind, access.paths) == ("open", ("index.html",))
