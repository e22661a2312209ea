"""`zizou acp` under a real ACP client someone else wrote: the headless `acpx` from npm (the
version pinned here, installed once into a cache folder, or `.ci/node` where CI put it). A
prompt runs a turn in a scratch project: the edit lands, the command runs only once the
client allowed it, and the answer arrives; a client that denies leaves the command unrun; the
model's reasoning arrives as thought chunks before the answer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from acp_harness import ACP_COMMAND, zizou_program
from conftest import cli_env
from loopback import LoopbackServer
from waiting import exclusive, scaled

ACPX = "acpx@0.19.1"
CI_FOLDER = Path(__file__).resolve().parents[2] / ".ci" / "node"


def _installed(folder: Path) -> Path | None:
    program = folder / "node_modules" / ".bin" / "acpx"
    return program if program.exists() else None


@pytest.fixture(scope="session")
def acpx() -> Path:
    """The acpx program: CI's, else the test cache's, installed there with npm if missing."""
    if found := _installed(CI_FOLDER):
        return found
    folder = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "zizou-tests" / ACPX
    with exclusive(folder.parent / "acpx.lock"):
        if found := _installed(folder):
            return found
        if shutil.which("npm") is None:
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail("CI needs npm to install the acpx client (.ci/run installs it)")
            pytest.skip("npm is not installed, so the acpx ACP client cannot be")
        command = ["npm", "install", "--prefix", str(folder), ACPX]
        subprocess.run(command, check=True, capture_output=True, timeout=scaled(300))
    found = _installed(folder)
    assert found is not None, f"npm installed {ACPX} but no acpx program is in {folder}"
    return found


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def run_acpx(
    acpx: Path, project: Path, home: Path, base_url: str, policy: str
) -> subprocess.CompletedProcess[str]:
    agent = " ".join([zizou_program(), *ACP_COMMAND[1:], "--api-base", base_url])
    env = cli_env(home, HOME=str(home))  # acpx keeps its own state under $HOME
    return subprocess.run(
        [str(acpx), "--agent", agent, policy, "--format", "json", "exec", "go"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=False,
    )


def test_acpx_runs_a_turn_the_edit_lands_and_the_allowed_command_runs(
    acpx: Path, project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("old line\n")
    script = [
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", old_string="old line", new_string="new line"),
        call("run_bash", command="touch made.txt"),
        {"text": "all done"},
    ]
    with LoopbackServer(script) as srv:
        done = run_acpx(acpx, project, zizou_home, srv.base_url, "--approve-all")
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    asked = [m for m in messages if m.get("method") == "session/request_permission"]
    assert [m["params"]["toolCall"]["title"] for m in asked] == ["touch made.txt"]
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    said = "".join(
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"
    )
    assert said == "all done"
    assert (project / "notes.txt").read_text() == "new line\n"
    assert (project / "made.txt").exists()
    answers = [m["result"]["outcome"] for m in messages if "outcome" in m.get("result", {})]
    assert answers == [{"outcome": "selected", "optionId": "allow_once"}]


def test_acpx_denying_leaves_the_command_unrun(acpx: Path, project: Path, zizou_home: Path) -> None:
    script = [call("run_bash", command="touch made.txt"), {"text": "understood"}]
    with LoopbackServer(script) as srv:
        denied = run_acpx(acpx, project, zizou_home, srv.base_url, "--deny-all")
        told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert denied.returncode == 5, denied.stderr  # acpx: a permission was denied
    assert not (project / "made.txt").exists()
    assert "did not approve" in told[0]


def test_acpx_receives_the_reasoning_as_thought_chunks_before_the_answer(
    acpx: Path, project: Path, zizou_home: Path
) -> None:
    script = [{"reasoning": "Nothing to look up: I just answer.", "text": "hello"}]
    with LoopbackServer(script) as srv:
        done = run_acpx(acpx, project, zizou_home, srv.base_url, "--deny-all")
    assert done.returncode == 0, done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    updates = [m["params"]["update"] for m in messages if m.get("method") == "session/update"]
    kinds = [u["sessionUpdate"] for u in updates]
    thoughts = [
        u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_thought_chunk"
    ]
    assert "".join(thoughts) == "Nothing to look up: I just answer."
    assert kinds.index("agent_message_chunk") > max(
        n for n, kind in enumerate(kinds) if kind == "agent_thought_chunk"
    )
