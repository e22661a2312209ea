"""The task state, instructions on demand and the history window through the real `zizou -p`
against the loopback server: what each request carries, what the session keeps, what the JSON
result says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

COUNT_SCHEMA = {
    "type": "object",
    "properties": {"count": {"type": "integer", "default": 0, "description": "How many."}},
}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def instruction(name: str) -> dict[str, Any]:
    return {"name": "get_instructions", "arguments": json.dumps({"name": name})}


def run(
    project: Path, home: Path, script: list[dict[str, Any]], *more: str, prompt: str = "go"
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "json", *more], project, home)
        return result, srv.chat_requests


def layer(request: dict[str, Any], name: str) -> str:
    system = request["messages"][0]["content"]
    if f"# {name}\n\n" not in system:
        return ""
    return system.split(f"# {name}\n\n")[1].split("\n\n# ")[0]


def results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_a_project_schema_starts_at_zero_takes_a_patch_and_refuses_a_wrong_type(
    project: Path, zizou_home: Path
) -> None:
    (project / ".zizou").mkdir()
    (project / ".zizou" / "state.schema.json").write_text(json.dumps(COUNT_SCHEMA))
    seven = [{"op": "replace", "path": "/count", "value": 7}]
    word = [{"op": "replace", "path": "/count", "value": "seven"}]
    script = [
        {"tool_calls": [call("update_state", patch=seven)]},
        {"tool_calls": [call("update_state", patch=word)]},
        {"text": "counted"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert layer(requests[0], "TASK STATE").endswith('Its value now:\n{"count":0}')
    assert "count?: number" in layer(requests[0], "TASK STATE")
    assert layer(requests[1], "TASK STATE").endswith('{"count":7}')
    refused = results(requests[2])[-1]
    assert refused.startswith("Error: Not applied: /count: ") and "State unchanged." in refused
    assert layer(requests[2], "TASK STATE").endswith('{"count":7}')
    assert result.json()["state"] == {"count": 7}


def test_the_built_in_plan_is_kept_refused_when_two_run_at_once_and_survives_continue(
    project: Path, zizou_home: Path
) -> None:
    plan = {
        "goal": "ship it",
        "plan": [
            {"id": "p1", "title": "read", "status": "done"},
            {"id": "p2", "title": "write", "status": "in_progress"},
            {"id": "p3", "title": "test", "status": "pending"},
        ],
    }
    both = [{"op": "replace", "path": "/plan/2/status", "value": "in_progress"}]
    script = [
        {"tool_calls": [call("update_state", merge=plan)]},
        {"tool_calls": [call("update_state", patch=both)]},
        {"text": "planned"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert "in_progress" in results(requests[2])[-1] and "p2" in results(requests[2])[-1]
    state = result.json()["state"]
    assert [item["status"] for item in state["plan"]] == ["done", "in_progress", "pending"]
    again, later = run(project, zizou_home, [{"text": "still here"}], "-c")
    assert again.code == 0, again.stderr
    assert '"goal":"ship it"' in layer(later[0], "TASK STATE")
    assert again.json()["state"] == state


def test_a_schema_file_that_is_not_json_stops_a_headless_run(
    project: Path, zizou_home: Path
) -> None:
    (project / ".zizou").mkdir()
    (project / ".zizou" / "state.schema.json").write_text('{"type": "object",\n  oops}')
    result, requests = run(project, zizou_home, [{"text": "never"}])
    assert result.code == 2 and requests == []
    assert ".zizou/state.schema.json" in result.stderr and "line 2, column 3" in result.stderr


def test_state_file_is_loaded_and_written_back(project: Path, zizou_home: Path) -> None:
    state_file = project.parent / "state.json"
    state_file.write_text(json.dumps({"goal": "from the file", "notes": ["n1"]}))
    script = [
        {"tool_calls": [call("update_state", merge={"notes": ["n1", "n2"]})]},
        {"text": "ok"},
    ]
    result, requests = run(project, zizou_home, script, "--state", str(state_file))
    assert result.code == 0, result.stderr
    assert '"goal":"from the file"' in layer(requests[0], "TASK STATE")
    saved = json.loads(state_file.read_text())
    assert saved["goal"] == "from the file" and saved["notes"] == ["n1", "n2"]


def test_an_instruction_is_listed_then_read_on_demand(project: Path, zizou_home: Path) -> None:
    folder = project / ".zizou" / "instructions"
    folder.mkdir(parents=True)
    (folder / "release.md").write_text(
        "---\ndescription: How this project cuts a release.\n---\nBump VERSION, then tag it.\n"
    )
    script = [
        {"tool_calls": [instruction("relase")]},
        {"tool_calls": [instruction("release")]},
        {"text": "released"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    listed = layer(requests[0], "INSTRUCTIONS")
    assert "- release: How this project cuts a release." in listed
    assert "- git-commit: " in listed  # a built-in one
    assert "Bump VERSION" not in json.dumps(requests[0])
    assert "Did you mean 'release'?" in results(requests[1])[-1]
    assert "Bump VERSION, then tag it." in results(requests[2])[-1]


def test_a_history_window_of_one_sends_one_earlier_turn_and_says_how_many_are_left_out(
    project: Path, zizou_home: Path
) -> None:
    for n in range(1, 4):
        more = ("-c",) if n > 1 else ()
        result, _ = run(
            project, zizou_home, [{"text": f"answer {n}"}], *more, prompt=f"question {n}"
        )
        assert result.code == 0, result.stderr
    result, requests = run(
        project, zizou_home, [{"text": "answer 4"}], "-c", "--history-window", "1", prompt="q4"
    )
    assert result.code == 0, result.stderr
    sent = [m["content"] for m in requests[0]["messages"][1:]]
    assert sent == ["question 3", "answer 3", "q4"]
    assert "History: 2 earlier user turns of this session are left out" in layer(
        requests[0], "LIVE CONTEXT"
    )
    session = next((project / ".zizou" / "sessions").glob("*.jsonl")).read_text()
    assert all(f"question {n}" in session for n in range(1, 4))
