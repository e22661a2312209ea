"""The real `zizou -p` process against the loopback server: a chained command needs an `--allow`
rule for every program in it, the denial names all of them in one line, and zizou-debug.log
says what approved or denied each call.

The sandbox is off here (`sleep`, `echo`, `ls`, `wc` are rules no argument can widen, so they
are accepted without it), which keeps the test the same on machines without bubblewrap."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

CHAIN = "sleep 0; echo finished"
HINT = "--allow 'run_bash:sleep' --allow 'run_bash:echo'"


def bash(command: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


def run(
    script: list[dict[str, Any]], project: Path, home: Path, *extra: str
) -> tuple[CliResult, list[str], str]:
    """Run one message; the tool results the model read, and the debug log's decisions (one
    line per PERMISSION-DECIDED record, without its call id)."""
    with LoopbackServer(script) as srv:
        args = ["-p", "go", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--sandbox", "off", *extra], project, home)
        requests = srv.chat_requests
    tools = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    log = (project / "zizou-debug.log").read_text(encoding="utf-8")
    decisions = re.findall(r"^\S+ \S+ PERMISSION-DECIDED \S+ (.*)$", log, re.MULTILINE)
    return result, tools, "\n".join(decisions)


def test_one_allow_rule_for_a_chain_is_refused_with_every_rule_named(
    project: Path, zizou_home: Path
) -> None:
    result, tools, decisions = run(
        [bash(CHAIN), {"text": "could not"}], project, zizou_home, "--allow", "run_bash:sleep"
    )
    assert result.code == 0, result.stderr
    assert "the user did not approve" in tools[0] and "--allow 'run_bash:echo' added" in tools[0]
    assert "run_bash was not run" in result.stderr and "'run_bash:echo'" in result.stderr
    assert "run_bash denied by headless · sandbox off" in decisions, decisions

    result, tools, decisions = run([bash(CHAIN), {"text": "could not"}], project, zizou_home)
    assert f"re-run with {HINT} added, or with --yes" in tools[0], tools[0]
    assert HINT in result.stderr


def test_the_log_names_what_approved_each_call_and_what_denied_one(
    project: Path, zizou_home: Path
) -> None:
    (project / ".env").write_text("TOKEN=x\n")
    script = [
        bash(CHAIN),
        bash("ls | tr a b"),
        {"tool_calls": [{"name": "read_file", "arguments": json.dumps({"path": ".env"})}]},
        {"text": "done"},
    ]
    allow = ["--allow", "run_bash:sleep", "--allow", "run_bash:echo", "--allow", "run_bash:ls"]
    result, tools, decisions = run(script, project, zizou_home, *allow)
    assert result.code == 0, result.stderr
    assert tools[0].startswith("exit code 0") and "finished" in tools[0]
    lines = decisions.splitlines()
    assert len(lines) == 3, decisions
    assert lines[0].startswith(
        "run_bash allowed by --allow (run_bash:sleep, run_bash:echo) · sandbox off · "
    ), lines[0]
    assert lines[1].startswith("run_bash denied by headless · sandbox off · ")
    assert "--allow 'run_bash:tr' added" in lines[1]
    assert lines[2].startswith("read_file denied by policy · `.env` may hold secrets")

    result, tools, decisions = run(
        [bash("ls | tr a b"), {"text": "ok"}], project, zizou_home, "--yes"
    )
    assert result.code == 0, result.stderr
    assert decisions == "run_bash allowed by --yes · sandbox off · approved by --yes"
