"""Without a sandbox, a `zizou -p` killed with kill -9 leaves nothing running: its watchdog ends
the foreground command and the background job at once; and when even the watchdog was killed,
the next zizou in the project ends what was left, and says so."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli
from loopback import LoopbackServer
from waiting import scaled, wait_until

START_S = 120  # a loaded machine takes long to start zizou (litellm's import alone)


def bash(command: str, background: bool = False) -> dict[str, object]:
    arguments = {"command": command, "background": background}
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(arguments)}]}


def running(marker: str) -> list[int]:
    """The live processes whose command line holds `marker` (a zombie has none)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if entry.name.isdigit() and int(stat[stat.rfind(")") + 2 :].split()[1]) == pid:
            found.append(int(entry.name))
    return found


def marker(base: int) -> str:
    """A `sleep` argument no other test uses: `sleep\\0600.123`."""
    return f"sleep\0{base + os.getpid() % 1000 / 1000:.3f}"


def start_zizou(project: Path, home: Path, srv: LoopbackServer) -> subprocess.Popen[str]:
    args = ["-p", "run them", "--api-base", srv.base_url, "--yes", "--sandbox", "off"]
    return subprocess.Popen(
        [sys.executable, "-m", "zizou", *args],
        cwd=project,
        env=cli_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def test_kill_9_of_zizou_ends_its_command_and_its_background_job(
    project: Path, zizou_home: Path
) -> None:
    job, command = marker(700), marker(600)
    script = [
        bash(job.replace("\0", " "), background=True),
        bash(command.replace("\0", " ")),
        {"text": "never"},
    ]
    with LoopbackServer(script) as srv:
        proc = start_zizou(project, zizou_home, srv)
        try:
            wait_until(lambda: running(job) and running(command), "both commands to run", START_S)
            # zizou tells the watchdog of a group just after starting it: wait for that
            wait_until(lambda: recorded(project, 2), "both groups to be recorded")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=scaled(30))
            wait_until(lambda: not running(job) and not running(command), "them to end")
        finally:
            proc.kill()
            for pid in running(job) + running(command):
                os.kill(pid, signal.SIGKILL)


def test_the_next_zizou_ends_what_a_dead_zizou_left_running_and_says_so(
    project: Path, zizou_home: Path
) -> None:
    command = marker(800)
    with LoopbackServer([bash(command.replace("\0", " ")), {"text": "never"}]) as srv:
        proc = start_zizou(project, zizou_home, srv)
        try:
            wait_until(lambda: running(command), "the command to run", START_S)
            # zizou writes the group down just after starting it: wait for that, not the clock
            wait_until(lambda: recorded(project), "the command's group to be recorded")
            [watchdog] = [p for p in children_of(proc.pid) if b"watchdog_script.py" in _cmdline(p)]
            os.kill(watchdog, signal.SIGKILL)  # the watchdog dies first: nobody ends it now
            wait_until(lambda: b"watchdog_script" not in _cmdline(watchdog), "the watchdog to die")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=scaled(30))
            assert running(command)  # left running, re-parented
            with LoopbackServer([{"text": "hello again"}]) as again:
                args = ["-p", "hi", "--api-base", again.base_url, "--sandbox", "off"]
                result = run_cli(args, project, zizou_home)
            assert result.code == 0, result.stderr
            assert "a zizou which stopped unexpectedly left running" in result.stderr
            assert command.replace("\0", " ") in result.stderr
            wait_until(lambda: not running(command), "the left command to end")
            assert list((project / ".zizou" / "jobs").iterdir()) == []
        finally:
            proc.kill()
            for pid in running(command):
                os.kill(pid, signal.SIGKILL)


def recorded(project: Path, groups: int = 1) -> bool:
    """The zizous of the project have written down at least `groups` process groups."""
    folder = project / ".zizou" / "jobs"
    if not folder.is_dir():
        return False
    added = sum(p.read_text().count("+ ") for p in folder.iterdir() if p.is_file())
    return added >= groups


def _cmdline(pid: int) -> bytes:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes()
    except OSError:
        return b""
