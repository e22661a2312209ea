"""Ways a turn can go wrong, through the real `zizou -p` and litellm's HTTP path: a server that
sends two tool calls under one id, and a project whose `.zizou` cannot be made. Each ends with
one JSON result and a clear message, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

from zizou.sessions import SessionStore


def test_two_tool_calls_with_one_id_both_run_and_the_turn_ends(
    project: Path, zizou_home: Path
) -> None:
    (project / "a.txt").write_text("alpha\n")
    (project / "b.txt").write_text("beta\n")
    same_id = [
        {"name": "read_file", "arguments": json.dumps({"path": "a.txt"}), "id": "call_0"},
        {"name": "read_file", "arguments": json.dumps({"path": "b.txt"}), "id": "call_0"},
    ]
    script = [{"tool_calls": same_id}, {"text": "Both read."}]
    with LoopbackServer(script) as server:
        result = run_cli(
            [
                "-p",
                "read both",
                "--model",
                "openai/test",
                "--api-base",
                server.base_url,
                "--output-format",
                "stream-json",
            ],
            project,
            zizou_home,
        )
        second = server.chat_requests[-1]["messages"]
    assert result.code == 0, result.stderr
    assert "Traceback" not in result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    finished = [e for e in lines if e["type"] == "tool_call_finished"]
    assert [e["ok"] for e in finished] == [True, True]
    assert len({e["call_id"] for e in finished}) == 2
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "Both read."
    answered = [m["tool_call_id"] for m in second if m["role"] == "tool"]
    assert len(answered) == len(set(answered)) == 2  # the provider got one answer per call
    store = SessionStore(project)
    assert store.load(lines[-1]["session_id"]).messages[-1].content == "Both read."


def test_a_zizou_dir_that_cannot_be_made_keeps_the_turn_and_says_so(
    project: Path, zizou_home: Path
) -> None:
    (project / ".zizou").write_text("not a directory\n")
    with LoopbackServer([{"text": "Hello."}]) as server:
        result = run_cli(
            [
                "-p",
                "hi",
                "--model",
                "openai/test",
                "--api-base",
                server.base_url,
                "--output-format",
                "json",
            ],
            project,
            zizou_home,
        )
    assert result.code == 0 and "Traceback" not in result.stderr
    [line] = result.stdout.splitlines()
    answer = json.loads(line)
    assert answer["result"] == "Hello." and answer["session_id"] is None
    assert ".zizou" in result.stderr and "not saved" in result.stderr
    assert (project / ".zizou").read_text() == "not a directory\n"  # left as it was
