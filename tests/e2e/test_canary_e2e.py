"""A canary key, set through the env and through the key store, never lands in the debug log,
in session files, or in the environment of a command the agent runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer

CANARY = "sk-canary-" + "5d1e9b7c3a2f4e6d8c0b1a9f"


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": json.dumps(arguments)}


@pytest.mark.parametrize("source", ["env", "key store"])
def test_the_canary_never_leaks(project: Path, zizou_home: Path, source: str) -> None:
    env = {"OPENAI_API_KEY": CANARY if source == "env" else ""}
    if source == "key store":
        saved = run_cli(
            ["keys", "set", "openai", "--file"], project, zizou_home, CANARY + "\n", **env
        )
        assert saved.code == 0, saved.stderr
    (project / "notes.txt").write_text(f"the key is {CANARY}\n")
    script = [
        {"tool_calls": [call("read_file", path="notes.txt"), call("run_bash", command="env")]},
        {"text": f"I saw {CANARY} in notes.txt."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "look", "--api-base", srv.base_url, "--allow", "run_bash:env"]
        result = run_cli(args, project, zizou_home, **env)
        requests = srv.requests
    assert result.code == 0, result.stderr
    chat = [r for r in requests if r.path.endswith("/chat/completions")]
    assert chat[0].headers["authorization"] == f"Bearer {CANARY}"  # the key did reach the provider
    env_output = chat[1].body["messages"][-1]["content"]
    assert "PATH=" in env_output and CANARY not in env_output

    log = (project / "zizou-debug.log").read_text()
    assert "SYSTEM PROMPT" in log and CANARY not in log
    sessions = list((project / ".zizou" / "sessions").glob("*.jsonl"))
    assert sessions
    for path in sessions:
        text = path.read_text()
        assert "notes.txt" in text and CANARY not in text
