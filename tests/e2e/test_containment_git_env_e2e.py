"""The real `zizou -p` against a hostile scripted model: files it writes never make zizou's own
git run code, and commands it runs never see the provider key in zizou's environment."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from loopback import LoopbackServer

KEY = "sk-test-containment-0123456789wxyz"
# With a sandbox the command cannot reach zizou's process at all; without one, zizou's own
# start-up capture must keep the key out of what it can read.
NO_SANDBOX = ["--sandbox", "off"]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def system_prompt(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_bare_repository_written_by_the_model_runs_nothing(
    project: Path, zizou_home: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "fsmonitor-ran"
    config = (
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        f"\tworktree = {project}\n\tfsmonitor = touch {marker}\n"
    )
    script = [
        {
            "tool_calls": [
                call("write_file", path="HEAD", content="ref: refs/heads/main\n"),
                call("write_file", path="config", content=config),
                call("write_file", path="objects/.keep", content=""),
                call("write_file", path="refs/.keep", content=""),
            ]
        },
        {"text": "done"},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "set things up", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "json"], project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    assert result.json()["steps"] == 2
    assert (project / "config").read_text() == config and (project / "refs" / ".keep").exists()
    assert len(requests) == 2
    assert "Git: not a git repository" in system_prompt(requests[1])  # rendered after the writes
    assert not marker.exists()


@pytest.mark.parametrize("extra", [[], NO_SANDBOX], ids=["default", "unsandboxed"])
def test_commands_never_see_the_key_in_zizous_environment(
    project: Path, zizou_home: Path, extra: list[str]
) -> None:
    command = "cat /proc/$PPID/environ | tr '\\0' '\\n'; ps eww; echo listed"
    script = [{"tool_calls": [call("run_bash", command=command)]}, {"text": "done"}]
    with LoopbackServer(script) as srv:
        args = ["-p", "look around", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--yes", *extra], project, zizou_home, OPENAI_API_KEY=KEY)
        chats = [r for r in srv.requests if r.path.endswith("/chat/completions")]

    assert result.code == 0, result.stderr
    assert len(chats) == 2
    assert chats[0].headers["authorization"] == f"Bearer {KEY}"  # zizou had the key
    (output,) = tool_messages(chats[1].body)
    assert "listed" in output  # the command ran
    for chat in chats:
        assert KEY not in json.dumps(chat.body)
        assert KEY[:-4] not in json.dumps(chat.body)
