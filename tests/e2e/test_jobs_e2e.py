"""The real `zizou -p` against the loopback server: a server started in the background does not
hold the turn and is gone once zizou exits (Ctrl+C and SIGTERM included), a foreground command
past the threshold moves to the background, and a cut output says how many lines were shown
and is read on with read_output."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import HOLDS_REPLIES, as_from_a_terminal, cli_env, run_cli
from loopback import LoopbackServer
from waiting import scaled

FETCH = (
    "python3 -c 'import time, urllib.request\n"
    "for _ in range(100):\n"
    "    try:\n"
    '        print(urllib.request.urlopen("http://127.0.0.1:{port}/").status); break\n'
    "    except OSError:\n"
    "        time.sleep(0.1)'"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def tool_results(srv: LoopbackServer) -> list[str]:
    """The tool results the model was sent, in order (each request repeats the earlier ones)."""
    last = srv.chat_requests[-1]
    return [str(m["content"]) for m in last["messages"] if m["role"] == "tool"]


def processes_in(project: Path) -> list[str]:
    """The live processes working in `project`: `pid command` each."""
    found = []
    real = os.path.realpath(project)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if state != "Z" and (cwd == real or cwd.startswith(real + os.sep)):
            found.append(f"{entry.name} {command}")
    return found


def none_left(project: Path) -> list[str]:
    deadline = time.monotonic() + scaled(5)
    while (left := processes_in(project)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def headless(srv: LoopbackServer, *flags: str) -> list[str]:
    return ["-p", "go", "--model", "openai/test", "--api-base", srv.base_url, *flags]


@pytest.fixture
def sandboxed(request: pytest.FixtureRequest) -> list[str]:
    """The flags that run the model's commands unsandboxed, or sandboxed with the network."""
    if request.param == "off":
        return ["--sandbox", "off", "--yes"]
    request.getfixturevalue("sandbox_on")
    return ["--network", "--yes"]


@pytest.mark.parametrize("sandboxed", ["off", "on"], indirect=True)
def test_a_background_server_does_not_hold_the_turn_and_is_gone_after_the_run(
    project: Path, zizou_home: Path, sandboxed: list[str]
) -> None:
    port = free_port()
    server = f"python3 -m http.server {port} --bind 127.0.0.1"
    script = [
        {"tool_calls": [call("run_bash", command=server, background=True)]},
        {"tool_calls": [call("run_bash", command=FETCH.format(port=port))]},
        {"tool_calls": [call("job_output", id="c1")]},
        {"text": "the server answers"},
    ]
    with LoopbackServer(script) as srv:
        result = run_cli(headless(srv, *sandboxed), project, zizou_home)
        started, fetched, log = tool_results(srv)
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "the server answers"
    assert started.startswith("job c1: running in the background")
    assert f"Serving HTTP on 127.0.0.1 port {port}" in started
    assert fetched == "exit code 0\n200"
    assert re.fullmatch(rf"job c1: running for \d+ s · {re.escape(server)}", log.splitlines()[0])
    assert '"GET / HTTP/1.1" 200' in log
    assert f"stopped 1 background job on exit: c1 ({server})" in result.stderr
    assert none_left(project) == []


def test_a_foreground_command_past_the_threshold_moves_to_the_background(
    project: Path, zizou_home: Path
) -> None:
    (zizou_home / "config.toml").write_text("background_after_s = 1\n")
    script = [
        {"tool_calls": [call("run_bash", command="sleep 600", timeout_s=600)]},
        {"text": "it runs on"},
    ]
    with LoopbackServer(script) as srv:
        result = run_cli(headless(srv, "--sandbox", "off", "--yes"), project, zizou_home)
        [moved] = tool_results(srv)
    assert result.code == 0, result.stderr
    assert moved.startswith(
        "job c1: still running after 1 s, so it was moved to the background and the turn goes on"
    )
    assert "[it is killed at its timeout (600 s), by job_kill, or when zizou exits]" in moved
    assert "stopped 1 background job on exit: c1 (sleep 600)" in result.stderr
    assert none_left(project) == []


def test_a_cut_output_says_what_was_shown_and_the_next_call_reads_line_150000(
    project: Path, zizou_home: Path
) -> None:
    script = [
        {"tool_calls": [call("run_bash", command="seq 1 200000")]},
        {
            "match": r"2,000 of 200,000 lines shown \(head and tail\); read the rest with "
            r"read_output\(id=\\\"c1\\\", start_line=1001, end_line=199000\)",
            "tool_calls": [call("read_output", id="c1", start_line=150000, end_line=150000)],
        },
        {"text": "line 150000 is 150000"},
    ]
    with LoopbackServer(script) as srv:
        result = run_cli(headless(srv, "--sandbox", "off", "--yes"), project, zizou_home)
        cut, line = tool_results(srv)
    assert result.code == 0, result.stderr
    assert cut.splitlines()[:3] == [
        "exit code 0",
        '[2,000 of 200,000 lines shown (head and tail); read the rest with read_output(id="c1", '
        "start_line=1001, end_line=199000)]",
        "1",
    ]
    assert "[... lines 1,001-199,000 not shown ...]" in cut
    assert line == "[output c1: line 150,000 of 200,000]\n150000"


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_being_stopped_leaves_no_job_behind(
    project: Path, zizou_home: Path, signum: signal.Signals
) -> None:
    script = [
        {"tool_calls": [call("run_bash", command="echo $$ > pid; sleep 900", background=True)]},
        {"text": "too late", "delay_s": 600},  # held until the stop, however long that takes
    ]
    (zizou_home / "config.toml").write_text(HOLDS_REPLIES)
    with LoopbackServer(script) as srv:
        args = headless(srv, "--sandbox", "off", "--yes")
        proc = subprocess.Popen(
            [sys.executable, "-m", "zizou", *args],
            cwd=project,
            env=cli_env(zizou_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_from_a_terminal,
        )
        try:
            deadline = time.monotonic() + scaled(60)
            while len(srv.chat_requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(srv.chat_requests) == 2, "the second request never came"
            assert processes_in(project), "the job is not running"
            proc.send_signal(signum)
            _, stderr = proc.communicate(timeout=scaled(30))
        finally:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "stopped 1 background job on exit: c1" in stderr
    assert none_left(project) == []
