"""The real `zizou -p` against the loopback server: `--permission-mode auto` runs a command the
sandbox holds without any `--allow` and says which mode ran; without a sandbox it asks (denied
headless) and says why; `--permission-mode ask` (or `permission_mode` in config.toml) makes an
edit ask."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from loopback import LoopbackServer


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def run(project: Path, home: Path, calls: list[dict[str, Any]], *extra: str) -> Any:
    script = [{"tool_calls": calls}, {"text": "done"}] if calls else [{"text": "done"}]
    with LoopbackServer(script) as srv:
        args = ["-p", "go", "--api-base", srv.base_url, "--output-format", "json", *extra]
        result = run_cli(args, project, home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    tools = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    return result.json(), tools


@pytest.mark.usefixtures("sandbox_on")
def test_auto_runs_a_sandboxed_command_without_asking(project: Path, zizou_home: Path) -> None:
    out, tools = run(
        project,
        zizou_home,
        [call("run_bash", command="touch made.txt")],
        "--permission-mode",
        "auto",
    )
    assert out["permission_mode"] == "auto"
    assert [c["ok"] for c in out["tool_calls"]] == [True], tools
    assert (project / "made.txt").exists()
    log = (project / "zizou-debug.log").read_text(encoding="utf-8")
    assert "run_bash allowed by auto mode" in log


def test_auto_without_a_sandbox_asks_and_says_why(project: Path, zizou_home: Path) -> None:
    calls = [call("run_bash", command="touch made.txt")]
    out, tools = run(project, zizou_home, calls, "--permission-mode", "auto", "--sandbox", "off")
    assert [c["ok"] for c in out["tool_calls"]] == [False]
    assert not (project / "made.txt").exists()
    assert "only in the sandbox" in tools[0]


def test_ask_mode_from_config_makes_an_edit_ask(project: Path, zizou_home: Path) -> None:
    (zizou_home / "config.toml").write_text('permission_mode = "ask"\n')
    out, tools = run(project, zizou_home, [call("write_file", path="a.txt", content="a\n")])
    assert out["permission_mode"] == "ask"
    assert [c["ok"] for c in out["tool_calls"]] == [False]
    assert not (project / "a.txt").exists()
    assert "--allow write_file" in tools[0]
    (zizou_home / "config.toml").write_text("")
    default, _ = run(project, zizou_home, [])
    assert default["permission_mode"] == "accept-edits"
