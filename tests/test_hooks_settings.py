"""The hook commands of Claude Code's settings: what a command's exit code and JSON output
mean, which tools a matcher takes, and the events zizou runs them on (real `bash` commands,
unsandboxed as the user's own are)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from waiting import wait_until

from zizou.contracts.events import Compacted, PermissionRequested, TurnFinished
from zizou.hooks.settings_hooks import CommandHook, command_hooks, hook_source
from zizou.hooks.shell_hook import HookOutcome, ShellHookRunner


@pytest.mark.parametrize(
    ("outcome", "decision"),
    [
        (HookOutcome(2, "", "no rm here\n"), ("block", "no rm here")),
        (HookOutcome(0, '{"decision": "block", "reason": "why"}', ""), ("block", "why")),
        (
            HookOutcome(
                0,
                json.dumps(
                    {
                        "hookSpecificOutput": {
                            "permissionDecision": "ask",
                            "permissionDecisionReason": "sure?",
                        }
                    }
                ),
                "",
            ),
            ("ask", "sure?"),
        ),
        (
            HookOutcome(0, json.dumps({"hookSpecificOutput": {"permissionDecision": "allow"}}), ""),
            ("allow", ""),
        ),
        (HookOutcome(0, '{"continue": false, "stopReason": "halt"}', ""), ("block", "halt")),
        (HookOutcome(1, "", "crashed"), (None, "")),  # a failure blocks nothing
        (HookOutcome(0, "plain text", ""), (None, "")),
    ],
)
def test_what_a_hook_decides(outcome: HookOutcome, decision: tuple[str | None, str]) -> None:
    assert outcome.decision() == decision


def test_context_is_additional_context_or_plain_output() -> None:
    added = {"hookSpecificOutput": {"additionalContext": "more"}}
    assert HookOutcome(0, json.dumps(added), "").context() == "more"
    assert HookOutcome(0, "plain\n", "").context() == "plain"
    assert HookOutcome(2, "plain", "").context() == ""


@pytest.mark.parametrize(
    ("matcher", "tool", "applies"),
    [
        ("Bash", "run_bash", True),
        ("Edit|Write", "write_file", True),
        ("Edit|Write", "read_file", False),
        ("", "grep", True),
        ("*", "grep", True),
        ("mcp__git__.*", "mcp__git__git_status", True),
        ("read_file", "read_file", True),
        ("Notebook.*", "edit_file", False),
    ],
)
def test_a_matcher_takes_claude_names_and_zizous(matcher: str, tool: str, applies: bool) -> None:
    hook = CommandHook("PreToolUse", matcher, "true", 1, "x", "user")
    assert hook.applies_to(tool) is applies


def test_what_zizou_cannot_run_is_named() -> None:
    hooks = {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "x"}]}],
        "SubagentStop": [],
        "Stop": "nope",
    }
    found, problems = command_hooks(".claude/settings.json", "project", hooks)
    assert found == []
    assert problems == [
        ".claude/settings.json: a hook of PreToolUse is not a `command` hook; not used",
        ".claude/settings.json: the SubagentStop hooks are not used: zizou has no such event",
        ".claude/settings.json: hooks.Stop is not a list; not used",
    ]


@pytest.mark.parametrize(
    ("event", "happened", "field", "value"),
    [
        ("Stop", TurnFinished("done", "ok", 1), "stop_hook_active", False),
        (
            "Notification",
            PermissionRequested("c1", "run_bash", "touch x"),
            "message",
            "zizou needs your permission to use run_bash: touch x",
        ),
        ("PreCompact", Compacted("user", "summary", 10, 2), "trigger", "manual"),
    ],
)
def test_turn_events_run_their_hooks_with_the_events_json(
    tmp_path: Path, event: str, happened: object, field: str, value: object
) -> None:
    out = tmp_path / "seen.json"
    hook = CommandHook(event, "", f"cat > {out}", 5, f"~/.claude/settings.json#{event}.1", "user")
    source = hook_source(hook, tmp_path / "settings.json", ShellHookRunner(tmp_path, None, {}))
    assert source.on_event is not None
    source.on_event(happened)  # type: ignore[arg-type]
    wait_until(lambda: _json(out) is not None, f"the {event} hook's output")
    seen = _json(out)
    assert seen is not None
    assert seen["hook_event_name"] == event and seen[field] == value
    assert seen["cwd"] == str(tmp_path)


def _json(path: Path) -> dict[str, object] | None:
    try:
        value = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None
