"""What an undo cut short leaves, through the real `zizou -p` and `zizou undo` processes: a
`zizou undo` killed (kill -9) while it restores files leaves its temp file in `.zizou/tmp`,
never in the project, and the next `zizou undo` finishes the restore and sweeps it; a temp file
a killed write left beside a file (as zizou wrote them before) is swept by the next undo; a
directory a command made goes with its files."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import cli_env, run_cli
from loopback import LoopbackServer
from waiting import scaled, wait_until

# `zizou undo`, its writes stopped just before a staged temp file takes its file's name: the
# moment a kill leaves the temp file behind. It says so by making the file named in argv[1].
PAUSED_UNDO = """
import os, sys, threading
from zizou.cli import main
marker, rename = sys.argv.pop(1), os.replace
def paused(src, dst, *, src_dir_fd=None, dst_dir_fd=None):
    if src_dir_fd is not None and src_dir_fd != dst_dir_fd:
        open(marker, "w").close()
        threading.Event().wait()
    return rename(src, dst, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
os.replace = paused
main(["undo"])
"""


def one_call(project: Path, home: Path, name: str, **arguments: Any) -> None:
    """A `zizou -p` turn whose model makes one call."""
    script = [{"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}, {"text": "ok"}]
    with LoopbackServer(script) as srv:
        args = ["-p", "change it", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--yes"], project, home)
    assert result.code == 0, result.stderr


def project_files(root: Path) -> list[str]:
    return sorted(
        path.relative_to(root).as_posix()
        for path in root.rglob("*")
        if path.is_file()
        and path.relative_to(root).parts[0] != ".zizou"
        and path.name != "zizou-debug.log"
    )


def gone_pid() -> int:
    """The id of a process that has ended."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def test_an_undo_killed_halfway_leaves_nothing_in_the_project(
    project: Path, zizou_home: Path, tmp_path: Path
) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "mod1.py").write_text("one = 1\n")
    one_call(project, zizou_home, "write_file", path="pkg/mod1.py", content="one = 2\n")
    marker = tmp_path / "paused"
    undo = subprocess.Popen(
        [sys.executable, "-c", PAUSED_UNDO, str(marker)],
        cwd=project,
        env=cli_env(zizou_home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until(marker.exists, "the undo to reach its rename", limit_s=60)
        os.kill(undo.pid, signal.SIGKILL)
    finally:
        undo.wait(timeout=scaled(30))
    staged = list((project / ".zizou" / "tmp").iterdir())
    assert [path.name.startswith(f"{undo.pid}-") for path in staged] == [True]
    assert project_files(project) == ["pkg/mod1.py"]  # no temp file beside it
    assert (project / "pkg" / "mod1.py").read_text() == "one = 2\n"

    again = run_cli(["undo"], project, zizou_home)
    assert again.code == 0, again.stderr
    assert (project / "pkg" / "mod1.py").read_text() == "one = 1\n"
    assert list((project / ".zizou" / "tmp").iterdir()) == []
    assert project_files(project) == ["pkg/mod1.py"]


def test_the_next_undo_sweeps_temp_files_a_killed_write_left(
    project: Path, zizou_home: Path
) -> None:
    (project / "pkg").mkdir()
    (project / "pkg" / "mod1.py").write_text("one = 1\n")
    one_call(project, zizou_home, "write_file", path="pkg/mod1.py", content="one = 2\n")
    beside = project / "pkg" / ".mod1.py.6920b7be.tmp"  # as a kill left it before staging
    beside.write_text("one = 1\n")
    os.utime(beside, (1_000_000_000, 1_000_000_000))
    staged = project / ".zizou" / "tmp" / f"{gone_pid()}-0a1b2c3d.tmp"
    staged.write_text("one = 1\n")
    theirs = project / "pkg" / ".mod1.py.notours.tmp"  # not a name zizou makes
    theirs.write_text("kept\n")

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert not beside.exists() and not staged.exists() and theirs.exists()
    assert (project / "pkg" / "mod1.py").read_text() == "one = 1\n"


def test_undo_removes_the_directories_a_command_made(project: Path, zizou_home: Path) -> None:
    command = "mkdir -p made/out/deep && echo x > made/out/deep/f.txt"
    one_call(project, zizou_home, "run_bash", command=command)
    assert (project / "made" / "out" / "deep" / "f.txt").exists()

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert not (project / "made").exists()
