"""Two zizou processes in one project keep their own debug logs: while another zizou holds
`zizou-debug.log` (here the test, holding its lock as a running zizou does), the real `zizou -p`
process writes `zizou-debug.PID.log` and leaves the other's log as it was; kept out of git."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

LOG = "zizou-debug.log"


def test_a_second_process_writes_its_own_log_and_leaves_the_held_one(
    project: Path, zizou_home: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    held = project / LOG
    held.write_text("the other zizou's turn\n")
    with held.open("a") as other, LoopbackServer([{"text": "Mine."}]) as srv:
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        args = ["-p", "hello", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli(args, project, zizou_home)
        assert result.code == 0, result.stderr
        assert held.read_text() == "the other zizou's turn\n"
    own = sorted(p.name for p in project.glob("zizou-debug.*.log"))
    assert len(own) == 1 and own[0] != LOG
    text = (project / own[0]).read_text(encoding="utf-8")
    assert "Mine." in text and "hello" in text
    exclude = (project / ".git" / "info" / "exclude").read_text()
    assert "zizou-debug.*.log" in exclude.splitlines()
    status = subprocess.run(
        ["git", "status", "--porcelain"], cwd=project, capture_output=True, text=True, check=True
    )
    assert "zizou-debug" not in status.stdout


def test_a_process_alone_keeps_the_usual_name(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "Alone."}]) as srv:
        args = ["-p", "hello", "--model", "openai/test-model", "--api-base", srv.base_url]
        assert run_cli(args, project, zizou_home).code == 0
    assert [p.name for p in project.glob("zizou-debug*.log")] == [LOG]
    assert os.stat(project / LOG).st_size > 0
