"""A server the model starts as a background job in the network-less sandbox, through the real
`zizou -p` against the loopback server: the model is told that nothing outside the sandbox can
reach its port, and how to allow it; with the network allowed (`--network`) it is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer

SERVER = (
    "exec python3 -c 'import socket, time; s = socket.socket(); "
    's.bind(("127.0.0.1", 0)); s.listen(); print("port", s.getsockname()[1], flush=True); '
    "time.sleep(600)'"
)


def told(project: Path, home: Path, *extra: str) -> str:
    """What the model read from job_output after starting the server in the background."""
    start = {"command": SERVER, "background": True}
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(start)}]},
        {
            "tool_calls": [
                {"name": "job_output", "arguments": json.dumps({"id": "c1", "wait_s": 3})}
            ]
        },
        {"text": "started"},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "start the server", "--model", "openai/test-model"]
        ran = run_cli([*args, "--api-base", srv.base_url, "--yes", *extra], project, home)
        assert ran.code == 0, ran.stderr
        return json.dumps(srv.chat_requests[-1])


@pytest.mark.usefixtures("sandbox_on")
def test_a_server_in_the_sandbox_without_network_is_said_to_be_unreachable(
    project: Path, zizou_home: Path
) -> None:
    said = told(project, zizou_home)
    assert "inside the sandbox, which has no network: nothing outside the sandbox" in said
    assert "--network" in said


@pytest.mark.usefixtures("sandbox_on")
def test_with_the_network_allowed_nothing_is_said(project: Path, zizou_home: Path) -> None:
    said = told(project, zizou_home, "--network")
    assert "port" in said and "which has no network" not in said
