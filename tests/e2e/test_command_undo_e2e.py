"""Undo of a command through the real `zizou -p` and `zizou undo` processes against the
loopback server: the model runs `rm -rf src data; mv a.txt b.txt; sed -i s/x/y/ c.txt;
echo > d.txt` in a git repository with tracked, untracked and ignored files, in the sandbox
(where it runs in a copy-on-write layer of its own, which says every file it changed, ignored
ones too); `zizou undo --dry-run` lists every file, `zizou undo` restores every one byte for
byte, and the project's `.git` is never touched."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer

COMMAND = "rm -rf src data; mv a.txt b.txt; sed -i s/x/y/ c.txt; echo > d.txt"
BINARY = bytes(range(256)) * 16
CRLF = b"x first\r\nx second\r\n"


def git(root: Path, *args: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", *ident, *args], cwd=root, env=env, check=True, capture_output=True)


def files(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and path.relative_to(root).parts[0] not in (".git", ".zizou")
        and path.name != "zizou-debug.log"
    }


def digest(directory: Path) -> str:
    """Every file of a `.git` but `info/exclude`, where zizou lists its own files at start."""
    hasher = hashlib.sha256()
    for path in sorted(directory.rglob("*")):
        if path.is_file() and path.relative_to(directory).as_posix() != "info/exclude":
            hasher.update(path.relative_to(directory).as_posix().encode() + path.read_bytes())
    return hasher.hexdigest()


def make_project(root: Path) -> None:
    (root / ".gitignore").write_text("data/*.db\nzizou-debug.log\n")
    (root / "src" / "app").mkdir(parents=True)
    (root / "src" / "app" / "main.py").write_text("print('x')\n")
    (root / "src" / "logo.png").write_bytes(BINARY)
    (root / "a.txt").write_text("moved\n")
    (root / "c.txt").write_bytes(CRLF)
    (root / "d.txt").write_text("some text\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tracked")
    (root / "src" / "draft.py").write_text("# untracked x\n")
    (root / "data").mkdir()
    (root / "data" / "seed.csv").write_text("untracked,x\n")
    (root / "data" / "local.db").write_bytes(b"ignored\x00db")


@pytest.mark.usefixtures("sandbox_on")
def test_a_commands_changes_are_undone_the_ignored_file_among_them(
    project: Path, zizou_home: Path
) -> None:
    make_project(project)
    before, git_dir = files(project), digest(project / ".git")
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": COMMAND})}]},
        {"text": "cleaned up"},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "clean up the project", "--model", "openai/test-model"]
        args += ["--api-base", srv.base_url, "--yes", "--output-format", "json"]
        ran = run_cli(args, project, zizou_home)
    assert ran.code == 0, ran.stderr
    assert ran.json()["tool_calls"] == [{"name": "run_bash", "ok": True}]
    assert not (project / "src").exists() and (project / "b.txt").read_text() == "moved\n"
    assert (project / "c.txt").read_bytes() == b"y first\r\ny second\r\n"

    shown = run_cli(["undo", "--dry-run"], project, zizou_home)
    assert shown.code == 0, shown.stderr
    for line in (
        "bring back    src/app/main.py",
        "bring back    src/logo.png",
        "bring back    src/draft.py",
        "bring back    data/seed.csv",
        "bring back    data/local.db",
        "bring back    a.txt",
        "delete        b.txt",
        "restore       c.txt",
        "restore       d.txt",
    ):
        assert line in shown.stdout, shown.stdout
    assert (project / "b.txt").exists()  # a dry run changes nothing

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert "brought back  data/local.db" in undone.stdout, undone.stdout
    assert "outside the project's files" in undone.stdout
    assert files(project) == before
    assert digest(project / ".git") == git_dir
