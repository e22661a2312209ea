"""The real `zizou -p` in a project with Claude Code's `.claude/settings.json`: its PreToolUse
hook blocks the model's `rm` with its reason once trusted (and is skipped with a warning before),
its deny rule refuses a read, an allow rule of the project's file approves nothing while the
user's own `.claude/settings.local.json` does, and a malformed file is named with its line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

BLOCK_RM = """#!/bin/bash
if grep -q '"command": "rm '; then
  echo "rm is blocked in this project: move files to trash/ instead" >&2
  exit 2
fi
"""


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def run(
    project: Path, home: Path, agents: Path, script: list[dict[str, Any]], *more: str
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        args = ["-p", "go", "--model", "openai/test-model", "--api-base", srv.base_url, *more]
        result = run_cli(args, project, home, ZIZOU_AGENTS_HOME=str(agents))
        return result, srv.chat_requests


def tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def settings(project: Path, name: str, document: dict[str, Any]) -> None:
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / name).write_text(json.dumps(document, indent=2))


def block_rm_hook(project: Path) -> dict[str, Any]:
    (project / ".claude" / "hooks").mkdir(parents=True, exist_ok=True)
    (project / ".claude" / "hooks" / "block-rm.sh").write_text(BLOCK_RM)
    command = 'bash "$CLAUDE_PROJECT_DIR/.claude/hooks/block-rm.sh"'
    entry = {"matcher": "Bash", "hooks": [{"type": "command", "command": command}]}
    return {"PreToolUse": [entry]}


def test_a_pre_tool_use_hook_blocks_rm_once_trusted_and_is_skipped_with_a_warning_before(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (project / ".claude").mkdir()
    settings(project, "settings.json", {"hooks": block_rm_hook(project)})
    script = [{"tool_calls": [call("run_bash", command="rm doomed.txt")]}, {"text": "done"}]

    (project / "doomed.txt").write_text("x")
    result, _ = run(project, zizou_home, agents_home, script, "--yes")
    assert result.code == 0, result.stderr
    assert "the hook .claude/settings.json#PreToolUse.1" in result.stderr
    assert "not trusted yet" in result.stderr and "--trust-hooks" in result.stderr
    assert not (project / "doomed.txt").exists()  # skipped: the command ran

    (project / "doomed.txt").write_text("x")
    result, requests = run(project, zizou_home, agents_home, script, "--yes", "--trust-hooks")
    assert result.code == 0, result.stderr
    assert (project / "doomed.txt").exists()
    refused = tool_results(requests[1])[-1]
    assert "rm is blocked in this project: move files to trash/ instead" in refused

    script = [{"tool_calls": [call("run_bash", command="echo fine > ok.txt")]}, {"text": "done"}]
    result, _ = run(project, zizou_home, agents_home, script, "--yes")  # trusted: no flag
    assert result.code == 0, result.stderr
    assert (project / "ok.txt").read_text() == "fine\n"

    (project / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": block_rm_hook(project) | {"Stop": []}})
    )  # the same command text: still trusted
    result, _ = run(project, zizou_home, agents_home, script, "--yes")
    assert "not trusted" not in result.stderr and "changed" not in result.stderr


def test_deny_refuses_a_read_and_only_the_users_own_allow_rules_approve(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (project / "secrets").mkdir()
    (project / "secrets" / "token.txt").write_text("hunter2-very-secret\n")
    settings(
        project,
        "settings.json",
        {"permissions": {"deny": ["Read(./secrets/**)", "WebFetch"], "allow": ["Bash(touch:*)"]}},
    )
    script = [
        {"tool_calls": [call("read_file", path="secrets/token.txt")]},
        {"tool_calls": [call("run_bash", command="touch made.txt")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, agents_home, script)
    assert result.code == 0, result.stderr
    refused_read, refused_touch = tool_results(requests[2])
    assert "the user did not approve this call" in refused_touch
    assert "deny rule Read(./secrets/**) of .claude/settings.json" in refused_read
    assert all("hunter2" not in json.dumps(r) for r in requests)
    assert not (project / "made.txt").exists()
    assert "the allow rule Bash(touch:*) approves nothing" in result.stderr
    assert "the deny rule WebFetch is not used: zizou has no tool like WebFetch" in result.stderr

    settings(project, "settings.local.json", {"permissions": {"allow": ["Bash(touch:*)"]}})
    result, requests = run(project, zizou_home, agents_home, script)
    assert result.code == 0, result.stderr
    assert (project / "made.txt").exists()


def test_a_malformed_settings_file_is_named_with_its_line_and_the_rest_loads(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    settings(project, "settings.json", {"permissions": {"deny": ["Bash(rm:*)"]}})
    (project / ".claude" / "settings.local.json").write_text('{\n  "permissions": {\n    oops\n}')
    (project / "doomed.txt").write_text("x")
    script = [{"tool_calls": [call("run_bash", command="rm doomed.txt")]}, {"text": "done"}]
    result, requests = run(project, zizou_home, agents_home, script, "--yes")
    assert result.code == 0, result.stderr
    assert ".claude/settings.local.json line 3: not JSON" in result.stderr
    assert "deny rule Bash(rm:*) of .claude/settings.json" in tool_results(requests[1])[-1]
    assert (project / "doomed.txt").exists()


def hooks_of(**events: tuple[str, str] | list[tuple[str, str]]) -> dict[str, Any]:
    """`hooks` of a settings file: each event's (matcher, command) pairs."""
    document: dict[str, Any] = {}
    for event, pairs in events.items():
        entries = pairs if isinstance(pairs, list) else [pairs]
        document[event] = [
            {"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": 2}]}
            for matcher, command in entries
        ]
    return document


POST_READ = (
    """echo '{"hookSpecificOutput": {"hookEventName": "PostToolUse", """
    """"additionalContext": "the read hook saw it"}}'"""
)
DENY_WRITE = (
    """echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", """
    """"permissionDecision": "deny", """
    """"permissionDecisionReason": "generated files are read-only"}}'"""
)


def test_the_users_hooks_of_every_event_reach_the_model_or_run(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (agents_home / ".claude").mkdir(parents=True)
    stop_log = project / "stop-events.jsonl"
    document = hooks_of(
        SessionStart=("", "echo 'Session note: the build uses make.'"),
        UserPromptSubmit=("", 'echo "Ticket context: $(cat | grep -o \'"prompt": "[a-z]*\')"'),
        PostToolUse=("Read", POST_READ),
        PreToolUse=[("Edit|Write", DENY_WRITE), ("LS", "sleep 20")],
        Stop=("", f"cat >> {stop_log}"),
    )
    (agents_home / ".claude" / "settings.json").write_text(json.dumps({"hooks": document}))
    (project / "notes.txt").write_text("hello\n")
    script = [
        {"tool_calls": [call("read_file", path="notes.txt")]},
        {"tool_calls": [call("write_file", path="gen.txt", content="x")]},
        {"tool_calls": [call("list_dir", path=".")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, agents_home, script, "--yes")
    assert result.code == 0, result.stderr
    system = str(requests[0]["messages"][0]["content"])
    assert "Session note: the build uses make." in system
    assert 'Ticket context: "prompt": "go' in system
    reminder = str(requests[1]["messages"][-1]["content"])
    assert "the read hook saw it" in reminder and "PostToolUse" in reminder
    assert "generated files are read-only" in tool_results(requests[2])[-1]
    assert not (project / "gen.txt").exists()
    assert "notes.txt" in tool_results(requests[3])[-1]  # the slow hook was stopped, the call ran
    assert "time limit (2 s)" in (project / "zizou-debug.log").read_text()
    stop = json.loads(stop_log.read_text().splitlines()[-1])
    assert stop["hook_event_name"] == "Stop" and stop["cwd"] == str(project.resolve())


def test_a_projects_hook_command_runs_in_the_sandbox(
    project: Path, zizou_home: Path, agents_home: Path, sandbox_on: None
) -> None:
    outside = zizou_home / "escaped.txt"
    command = f"echo out > {outside}; echo in > $CLAUDE_PROJECT_DIR/inside.txt"
    settings(project, "settings.json", {"hooks": hooks_of(PostToolUse=("", command))})
    script = [{"tool_calls": [call("list_dir", path=".")]}, {"text": "done"}]
    result, _ = run(project, zizou_home, agents_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    assert (project / "inside.txt").read_text() == "in\n"
    assert not outside.exists()


def test_zizou_hooks_lists_a_settings_hook_and_trusts_it_by_name(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    settings(project, "settings.json", {"hooks": block_rm_hook(project)})
    env = {"ZIZOU_AGENTS_HOME": str(agents_home)}
    listed = run_cli(["hooks", "list"], project, zizou_home, **env)
    assert listed.code == 0, listed.stderr
    assert ".claude/settings.json#PreToolUse.1  command  project  untrusted" in listed.stdout
    trusted = run_cli(
        ["hooks", "trust", ".claude/settings.json#PreToolUse.1"], project, zizou_home, **env
    )
    assert trusted.code == 0, trusted.stderr
    (project / "doomed.txt").write_text("x")
    script = [{"tool_calls": [call("run_bash", command="rm doomed.txt")]}, {"text": "done"}]
    result, requests = run(project, zizou_home, agents_home, script, "--yes")
    assert result.code == 0, result.stderr
    assert "rm is blocked in this project" in tool_results(requests[1])[-1]
    assert (project / "doomed.txt").exists()


def test_an_ask_rule_asks_even_under_yes_and_is_refused_headless(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (agents_home / ".claude").mkdir(parents=True)
    user = {"permissions": {"ask": ["Write(*.lock)"], "allow": ["Bash(touch:*)"]}}
    (agents_home / ".claude" / "settings.json").write_text(json.dumps(user))
    script = [
        {"tool_calls": [call("write_file", path="poetry.lock", content="x")]},
        {"tool_calls": [call("run_bash", command="touch made.txt")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, agents_home, script, "--yes")
    assert result.code == 0, result.stderr
    assert (
        "the ask rule Write(*.lock) of ~/.claude/settings.json asks first"
        in tool_results(requests[2])[0]
    )
    assert "only a person can approve it (not --yes)" in tool_results(requests[2])[0]
    assert not (project / "poetry.lock").exists()
    assert (project / "made.txt").exists()  # the user's own allow rule
