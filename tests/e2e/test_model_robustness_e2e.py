"""The real `zizou -p` process against the loopback server, with a model that gets tool calling
wrong (repaired names) and with one that cannot call tools at all (the JSON reply protocol)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

LOG = "zizou-debug.log"


def zizou(project: Path, home: Path, srv: LoopbackServer, prompt: str, *extra: str) -> Any:
    args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url]
    result = run_cli([*args, "--output-format", "json", *extra], project, home)
    assert result.code == 0, result.stderr
    return result.json()


def test_misnamed_tool_calls_are_repaired_run_and_logged(project: Path, zizou_home: Path) -> None:
    (project / "notes.txt").write_text("remember the milk\n")
    (project / "todo.txt").write_text("water the plants\n")
    glued = {"name": 'read_file{"path": "notes.txt"}', "arguments": "{}"}
    camel = {"name": "readFile", "arguments": json.dumps({"path": "todo.txt"})}
    script = [
        {"tool_calls": [camel, glued]},
        {"text": "Milk, and the plants."},
    ]
    with LoopbackServer(script) as srv:
        out = zizou(project, zizou_home, srv, "what is on my lists?")
        requests = srv.chat_requests

    assert out["result"] == "Milk, and the plants."
    assert out["tool_calls"] == [{"name": "read_file", "ok": True}] * 2
    results = [m["content"] for m in requests[1]["messages"] if m["role"] == "tool"]
    assert results[0].startswith("(called as readFile; ran read_file)\n")
    assert "water the plants" in results[0]
    assert results[1].startswith('(called as read_file{"path": "notes.txt"}; ran read_file)\n')
    assert "remember the milk" in results[1]
    log = (project / LOG).read_text(encoding="utf-8")
    assert "LOG WARNING zizou.agent.calls: repaired the tool call" in log
    assert "called as 'readFile', ran read_file" in log
    assert 'called as \'read_file{"path": "notes.txt"}\', ran read_file' in log


def test_the_json_protocol_drives_a_tool_call_from_a_text_reply(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("remember the milk\n")
    read = {"name": "read_file", "arguments": {"path": "notes.txt"}}
    script = [
        {
            "text": json.dumps(
                {
                    "messageToUser": "Reading your notes.",
                    "toolCalls": [read],
                    "diff": {"goal": "say what the notes hold"},
                }
            )
        },
        {"text": '```json\n{"messageToUser": "Your notes say: remember the milk."}\n```'},
    ]
    with LoopbackServer(script) as srv:
        out = zizou(project, zizou_home, srv, "what do my notes say?", "--protocol", "json")
        requests = srv.chat_requests

    assert out["result"] == "Your notes say: remember the milk."
    assert sorted(c["name"] for c in out["tool_calls"]) == ["read_file", "update_state"]
    assert all(c["ok"] for c in out["tool_calls"])
    assert out["state"]["goal"] == "say what the notes hold"  # the reply's diff
    assert len(requests) == 2
    assert all("tools" not in body for body in requests)
    assert all("# REPLY FORMAT" in body["messages"][0]["content"] for body in requests)
    second = requests[1]["messages"]
    assert [m["role"] for m in second[1:]] == ["user", "assistant", "user"]
    assert read in json.loads(second[2]["content"])["toolCalls"]
    assert second[3]["content"].startswith('Results:\n\n[json_1] read_file {"path": "notes.txt"}:')
    assert "remember the milk" in second[3]["content"]
