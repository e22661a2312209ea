"""The real `zizou -p` against the loopback server: the model commits when the user allowed the
commit tool (`--allow git_commit`), outside the sandbox that keeps `.git/` read-only, with the
repository's hooks not run; `--yes` alone does not approve a commit; nothing to commit, or a
repository with filter drivers, is refused with the reason."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from loopback import LoopbackServer

pytestmark = pytest.mark.usefixtures("git_installed")


def git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


def repo(project: Path) -> None:
    git(project, "init", "-q")
    git(project, "config", "user.email", "dev@example.com")
    git(project, "config", "user.name", "Dev")
    (project / "app.py").write_text("A = 1\n")
    git(project, "add", "-A")
    git(project, "commit", "-qm", "first")
    hook = project / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\ntouch hook-ran\nexit 1\n")
    hook.chmod(0o755)


def commit(project: Path, home: Path, *extra: str, message: str = "Add B") -> Any:
    call = {"name": "git_commit", "arguments": json.dumps({"message": message})}
    with LoopbackServer([{"tool_calls": [call]}, {"text": "done"}]) as srv:
        args = ["-p", "commit it", "--api-base", srv.base_url, "--output-format", "json", *extra]
        result = run_cli(args, project, home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    tools = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    return result.json(), tools[0]


def test_an_allowed_commit_lands_without_running_the_repositorys_hooks(
    project: Path, zizou_home: Path
) -> None:
    repo(project)
    (project / "app.py").write_text("A = 1\nB = 2\n")
    (project / "new.py").write_text("C = 3\n")
    out, said = commit(project, zizou_home, "--allow", "git_commit")
    assert [c["ok"] for c in out["tool_calls"]] == [True], said
    assert said.startswith("Committed ") and "Add B" in said
    assert git(project, "log", "-1", "--format=%s").strip() == "Add B"
    assert git(project, "status", "--porcelain").strip() == ""
    assert not (project / "hook-ran").exists()


def test_yes_does_not_approve_a_commit_and_nothing_is_committed(
    project: Path, zizou_home: Path
) -> None:
    repo(project)
    (project / "app.py").write_text("A = 2\n")
    out, said = commit(project, zizou_home, "--yes")
    assert [c["ok"] for c in out["tool_calls"]] == [False]
    assert "--allow git_commit" in said
    assert git(project, "log", "-1", "--format=%s").strip() == "first"


def test_nothing_to_commit_or_filter_drivers_are_refused(project: Path, zizou_home: Path) -> None:
    repo(project)
    _, said = commit(project, zizou_home, "--allow", "git_commit")
    assert "nothing to commit" in said
    git(project, "config", "filter.lfs.clean", "git-lfs clean -- %f")
    (project / "app.py").write_text("A = 3\n")
    _, said = commit(project, zizou_home, "--allow", "git_commit")
    assert "filter drivers" in said
    assert git(project, "log", "-1", "--format=%s").strip() == "first"
