"""The real `zizou -p` process against the loopback server: litellm's real HTTP path, real
tools on real files, real bash."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


VERBOSE = "    parser.add_argument('--verbose', action='store_true')\n    return parser"
CLI_PY = (
    "import argparse\n\n\ndef main():\n    parser = argparse.ArgumentParser()\n    return parser\n"
)
TEST_PY = (
    "import cli\n\n\ndef test_verbose():\n    assert cli.main().parse_args(['--verbose']).verbose\n"
)


def test_multi_step_turn_edits_writes_and_runs_an_allowed_command(
    project: Path, zizou_home: Path
) -> None:
    (project / "cli.py").write_text(CLI_PY)
    (project / "README.md").write_text("# demo\n")
    check = "python3 -c 'import cli; print(cli.main().parse_args([\"--verbose\"]).verbose)'"
    script = [
        {"tool_calls": [call("list_dir", path="."), call("glob", pattern="*.py")]},
        {"tool_calls": [call("read_file", path="cli.py"), call("grep", pattern="argparse")]},
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="cli.py",
                    old_string="    return parser",
                    new_string=VERBOSE,
                ),
                call("write_file", path="tests/test_cli.py", content=TEST_PY),
            ]
        },
        {"tool_calls": [call("run_bash", command=check)]},
        {"text": "Added a --verbose flag and a test."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "add a --verbose flag to cli.py", "--model", "openai/test-model"]
        args += [
            "--api-base",
            srv.base_url,
            "--output-format",
            "json",
            "--allow",
            "run_bash:python3",
        ]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert out["type"] == "result" and out["subtype"] == "success"
    assert out["result"] == "Added a --verbose flag and a test."
    assert out["steps"] == 5
    assert [c["name"] for c in out["tool_calls"]] == [
        "list_dir",
        "glob",
        "read_file",
        "grep",
        "edit_file",
        "write_file",
        "run_bash",
    ]
    assert all(c["ok"] for c in out["tool_calls"]), out["tool_calls"]
    assert out["usage"]["input_tokens"] > 0 and out["usage"]["output_tokens"] > 0
    assert (project / "cli.py").read_text() == CLI_PY.replace(
        "    return parser",
        "    parser.add_argument('--verbose', action='store_true')\n    return parser",
    )
    assert (project / "tests" / "test_cli.py").read_text() == TEST_PY

    assert len(requests) == 5
    first = requests[0]
    assert first["messages"][0]["role"] == "system"
    assert "# SESSION CONTEXT" in first["messages"][0]["content"]
    assert {t["function"]["name"] for t in first["tools"]} >= {
        "read_file",
        "run_bash",
        "open_in_workspace",
    }
    listing, globbed = tool_messages(requests[1])
    assert "cli.py" in listing and "README.md" in listing
    assert "cli.py" in globbed
    assert tool_messages(requests[4])[-1].splitlines()[-1].strip() == "True"
    assert (
        (project / ".zizou" / "compiled" / "prompt.md")
        .read_text()
        .startswith("# BASE INSTRUCTIONS")
    )


def test_paths_outside_the_root_are_refused_and_never_reach_the_model(
    tmp_path: Path, project: Path, zizou_home: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET-123\n")
    os.symlink(secret, project / "link.txt")
    os.symlink(tmp_path / "nowhere.txt", project / "dangling.txt")
    script = [
        {
            "tool_calls": [
                call("read_file", path="../secret.txt"),
                call("read_file", path=str(secret)),
                call("read_file", path="link.txt"),
                call("write_file", path="dangling.txt", content="x"),
                call("grep", pattern="TOPSECRET", path=".."),
                call("list_dir", path=".."),
            ]
        },
        {"text": "I cannot read those."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "read the secret", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert [c["ok"] for c in out["tool_calls"]] == [False] * 6
    assert not (tmp_path / "nowhere.txt").exists()
    everything_sent = json.dumps(requests)
    assert "TOPSECRET-123" not in everything_sent
    assert all("outside the project root" in m for m in tool_messages(requests[1]))


def test_a_chained_command_with_an_unapproved_segment_is_denied_and_nothing_runs(
    project: Path, zizou_home: Path
) -> None:
    script = [
        {
            "tool_calls": [
                call("run_bash", command="echo ok && touch pwned1"),
                call("run_bash", command="echo $(touch pwned2)"),
                call("run_bash", command="echo ok; touch pwned3"),
            ]
        },
        {"text": "Denied."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "go", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli([*args, "--allow", "run_bash:echo"], project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    assert [c["ok"] for c in result.json()["tool_calls"]] == [False, False, False]
    assert not any((project / f"pwned{i}").exists() for i in (1, 2, 3))
    for message in tool_messages(requests[1]):
        assert "headless" in message and "--yes" in message


def test_malformed_and_unknown_tool_calls_are_answered_and_the_turn_completes(
    project: Path, zizou_home: Path
) -> None:
    script = [
        {
            "tool_calls": [
                {"name": "read_file", "arguments": '{"path": "a.txt"'},
                {"name": "delete_everything", "arguments": "{}"},
                call("read_file", file="a.txt"),
            ]
        },
        {"tool_calls": [call("read_file", path="a.txt")]},
        {"text": "Recovered."},
    ]
    (project / "a.txt").write_text("hello\n")
    with LoopbackServer(script) as srv:
        args = ["-p", "read a.txt", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert out["result"] == "Recovered."
    assert [c["ok"] for c in out["tool_calls"]] == [False, False, False, True]
    malformed, unknown, invalid = tool_messages(requests[1])
    assert "not valid JSON" in malformed
    assert "unknown tool 'delete_everything'" in unknown and "read_file" in unknown
    assert "invalid arguments for read_file" in invalid and "path" in invalid
    assert "hello" in tool_messages(requests[2])[-1]


def test_the_step_cap_stops_with_exit_3(project: Path, zizou_home: Path) -> None:
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("glob", pattern="*")]},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "loop", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli([*args, "--max-steps", "2"], project, zizou_home)

    assert result.code == 3, result.stderr
    out = result.json()
    assert out["subtype"] == "max_steps" and out["steps"] == 2
    assert "step cap" in out["result"]


def test_prompt_from_stdin_and_text_output(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "Hello from the model."}]) as srv:
        result = run_cli(
            ["-p", "-", "--api-base", srv.base_url], project, zizou_home, stdin="hi there"
        )
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert result.stdout == "Hello from the model.\n"
    assert requests[0]["messages"][-1] == {"role": "user", "content": "hi there"}


def test_stream_json_prints_one_object_per_event(project: Path, zizou_home: Path) -> None:
    script = [{"tool_calls": [call("list_dir")]}, {"text": "done"}]
    with LoopbackServer(script) as srv:
        args = ["-p", "x", "--api-base", srv.base_url, "--output-format", "stream-json"]
        result = run_cli(args, project, zizou_home)
    assert result.code == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "turn_started" and types[-1] == "result"
    assert "tool_call_started" in types and "tool_call_finished" in types and "text_delta" in types


def test_a_missing_key_is_exit_2_naming_the_fix(project: Path, zizou_home: Path) -> None:
    result = run_cli(
        ["-p", "hi", "--model", "openai/gpt-4o"], project, zizou_home, OPENAI_API_KEY=""
    )
    assert result.code == 2
    assert "OPENAI_API_KEY" in result.stderr
