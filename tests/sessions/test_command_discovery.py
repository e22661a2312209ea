"""`zizou sessions list` from a subdirectory finds the project's sessions, as git finds its
repository, and does not look past the root of a git work tree."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer

from zizou.sessions import find_project


def start_a_session(project: Path, home: Path) -> str:
    with LoopbackServer([{"text": "Noted."}]) as srv:
        args = ["-p", "remember 42", "--api-base", srv.base_url, "--output-format", "json"]
        first = run_cli(args, project, home)
    assert first.code == 0, first.stderr
    session_id: str = first.json()["session_id"]
    return session_id


@pytest.mark.slow  # a zizou process, or litellm imported
def test_the_list_from_a_subdirectory_shows_the_projects_sessions(
    project: Path, zizou_home: Path
) -> None:
    session_id = start_a_session(project, zizou_home)
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    listing = run_cli(["sessions", "list"], deep, zizou_home)
    assert listing.code == 0, listing.stderr
    assert listing.stdout.splitlines()[0] == f"sessions of {project.resolve()}"
    assert session_id in listing.stdout and "remember 42" in listing.stdout


def test_discovery_stops_at_a_git_work_tree(project: Path, tmp_path: Path) -> None:
    (project / ".zizou" / "sessions").mkdir(parents=True)
    nested = project / "vendor" / "lib"
    (nested / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(nested)], check=True)
    assert find_project(project / "vendor") == project.resolve()
    assert find_project(nested / "src") == (nested / "src").resolve()
    assert find_project(tmp_path / "elsewhere") == (tmp_path / "elsewhere").resolve()
