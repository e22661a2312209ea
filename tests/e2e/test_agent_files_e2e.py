"""The real `zizou -p` with a Claude Code sub-agent in `.claude/agents/`: offered to the model as
a deck with its description, run on its own prompt with the tools it lists, its text answer
returned; a model zizou cannot route falls back to the session's with a warning, and a bad file
is named while the others load."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

TESTER = """---
name: tester
description: Runs the tests and reports failures.
tools: Read, Grep, Bash, WebSearch
model: sonnet
---
You are a careful test runner. Report only failures.
"""


def tools(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in request.get("tools", [])}


def test_a_claude_agent_runs_as_a_deck(project: Path, zizou_home: Path) -> None:
    agents = project / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "tester.md").write_text(TESTER)
    (agents / "broken.md").write_text("---\nname: broken\nno colon here\n---\nBody\n")
    script = [
        {
            "match": "^(?!.*You are the deck )",
            "tool_calls": [{"name": "tester", "arguments": json.dumps({"input": "the parser"})}],
        },
        {"match": "You are the deck tester,", "text": "2 failures in test_parser.py"},
        {"text": "The tester found 2 failures."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "test it", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    offered = tools(requests[0])["tester"]
    assert offered["description"].startswith("Runs the tests and reports failures.")
    child = next(r for r in requests if "You are the deck tester," in json.dumps(r))
    assert "You are a careful test runner." in json.dumps(child)
    assert sorted(set(tools(child)) - {"fail"}) == ["grep", "read_file", "run_bash"]
    assert "2 failures in test_parser.py" in json.dumps(requests[-1])
    assert "The tester found 2 failures." in result.stdout
    assert "tester.md: the model sonnet is not used" in result.stderr
    assert "the tool WebSearch has no zizou equivalent" in result.stderr
    assert ".claude/agents/broken.md line 3: 'no colon here' is not a `key: value`" in result.stderr
