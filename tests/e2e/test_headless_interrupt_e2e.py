"""Ctrl+C on a real `zizou -p` mid-request: the loop ends the turn itself, so the session file
gets its end record, and a json run still prints its one result."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from conftest import cli_env
from loopback import LoopbackServer


def test_ctrl_c_ends_the_turn_in_the_session_file_and_prints_the_result(
    project: Path, zizou_home: Path
) -> None:
    with LoopbackServer([{"text": "too late", "delay_s": 30}]) as srv:
        args = ["-p", "take your time", "--api-base", srv.base_url, "--output-format", "json"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "zizou", *args],
            cwd=project,
            env=cli_env(zizou_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 60
            while not srv.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert srv.chat_requests, "the request never reached the server"
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=30)
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
