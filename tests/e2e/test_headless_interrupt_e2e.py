"""Ctrl+C on a real `zizou -p` mid-request: the loop ends the turn itself, so the session file
gets its end record, and a json run still prints its one result; mid-command, the command's
result says it was interrupted, after how long, and what it printed."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import HOLDS_REPLIES, as_from_a_terminal, cli_env
from loopback import LoopbackServer
from waiting import running_process, scaled, unique_sleep, wait_until


def test_ctrl_c_ends_the_turn_in_the_session_file_and_prints_the_result(
    project: Path, zizou_home: Path
) -> None:
    # The reply is held until the stop, however long the machine takes to send that.
    (zizou_home / "config.toml").write_text(HOLDS_REPLIES)
    with LoopbackServer([{"text": "too late", "delay_s": 600}]) as srv:
        args = ["-p", "take your time", "--api-base", srv.base_url, "--output-format", "json"]
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
            while not srv.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert srv.chat_requests, "the request never reached the server"
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=scaled(30))
        finally:
            proc.kill()
    assert proc.returncode == 130, stderr
    result = json.loads(stdout.strip().splitlines()[-1])
    assert result["subtype"] == "error" and result["error"]["kind"] == "interrupted"
    [session] = (project / ".zizou" / "sessions").glob("*.jsonl")
    assert result["session_id"] == session.stem
    records = [json.loads(line) for line in session.read_text().splitlines()]
    turns = [r for r in records if r["kind"] == "turn"]
    assert [t["event"] for t in turns] == ["started", "finished"]
    assert turns[-1]["reason"] == "cancelled"


def test_ctrl_c_during_a_command_tells_how_long_it_ran_and_what_it_printed(
    project: Path, zizou_home: Path
) -> None:
    """The command ran and did its work before the stop: the model, the session file and the
    debug log are told it was interrupted after so long, with its output, not that it never
    ran."""
    sleep, sleeping = unique_sleep()
    command = f"echo started the work; touch made.txt; {sleep}"
    call = {"name": "run_bash", "arguments": json.dumps({"command": command})}
    with LoopbackServer([{"tool_calls": [call]}]) as srv:
        args = ["-p", "do the work", "--api-base", srv.base_url, "--yes"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "zizou", *args, "--output-format", "json"],
            cwd=project,
            env=cli_env(zizou_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=as_from_a_terminal,
        )
        try:
            # In the sandbox its files arrive when it ends: its process says that it runs.
            wait_until(lambda: running_process(sleeping), "the command to run", 60)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=scaled(60))
        finally:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert (project / "made.txt").exists()  # what it did before the stop is done
    assert json.loads(stdout.strip().splitlines()[-1])["error"]["kind"] == "interrupted"
    [session] = (project / ".zizou" / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    results = [
        r["message"]
        for r in records
        if r["kind"] == "message" and r["message"].get("role") == "tool"
    ]
    [result] = results
    assert "not run" not in result["content"]
    assert re.search(r"interrupted after \d+\.\d s", result["content"]), result["content"]
    assert "started the work" in result["content"]
    log = (project / "zizou-debug.log").read_text()
    assert re.search(r"TOOL-ERROR \S+ run_bash after [\d.]+s, output:", log)
    assert "started the work" in log.split("TOOL-ERROR", 1)[1]
