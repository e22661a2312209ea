"""Claude Code's permission rules mapped onto zizou's tools: what each form covers, and why a
rule zizou cannot map is left out."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from zizou.config.claude_permissions import parse_rule
from zizou.hooks.api import ToolCallInfo


def call(name: str, **arguments: object) -> ToolCallInfo:
    return ToolCallInfo(name, types.MappingProxyType(arguments), "")


@pytest.mark.parametrize(
    ("rule", "tool_call", "matches"),
    [
        ("Bash(rm:*)", call("run_bash", command="rm -rf build"), True),
        ("Bash(rm:*)", call("run_bash", command="ls && /bin/rm x"), True),
        ("Bash(rm:*)", call("run_bash", command="rmdir x"), False),
        ("Bash(git push:*)", call("run_bash", command="git push origin main"), True),
        ("Bash(git push:*)", call("run_bash", command="git pull"), False),
        ("Bash(npm test)", call("run_bash", command="npm test"), True),
        ("Bash(npm test)", call("run_bash", command="npm test --watch"), False),
        ("Bash(rm:*)", call("run_bash", command="echo $(rm x"), True),  # unreadable: fails closed
        ("Bash", call("run_bash", command="anything"), True),
        ("Read(./secrets/**)", call("read_file", path="secrets/token.txt"), True),
        ("Read(./secrets/**)", call("read_file", path="./secrets/a/b.txt"), True),
        ("Read(./secrets/**)", call("list_dir", path="secrets"), True),
        ("Read(./secrets/**)", call("read_file", path="src/secrets.py"), False),
        ("Read(*.pem)", call("grep", path="deep/cert.pem", pattern="x"), True),
        ("Edit(src/**)", call("write_file", path="src/a.py"), True),
        ("Edit(src/**)", call("read_file", path="src/a.py"), False),
        ("Write(*.lock)", call("write_file", path="poetry.lock"), True),
        ("Write(*.lock)", call("edit_file", path="poetry.lock"), False),
        ("mcp__git", call("mcp__git__git_status"), True),
        ("mcp__git__git_log", call("mcp__git__git_status"), False),
    ],
)
def test_a_rule_covers_the_calls_it_names(
    rule: str, tool_call: ToolCallInfo, matches: bool
) -> None:
    assert (
        parse_rule(rule, ".claude/settings.json", "deny").matches(tool_call, Path("/p")) is matches
    )


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("WebFetch(domain:example.com)", "zizou has no tool like WebFetch"),
        ("Read(~/.ssh/**)", "outside the project"),
        ("Bash(a && b:*)", "more than one command"),
        ("Bash(", "not `Tool` or `Tool(specifier)`"),
    ],
)
def test_a_rule_zizou_cannot_map_says_why(rule: str, why: str) -> None:
    with pytest.raises(ValueError, match=why.replace("(", r"\(").replace(")", r"\)")):
        parse_rule(rule, ".claude/settings.json", "deny")


@pytest.mark.parametrize(
    "command", ["bash -c 'rm -rf build'", "echo `rm x`", "find . | xargs rm", "sudo rm x"]
)
def test_a_command_run_inside_another_is_still_denied(command: str) -> None:
    rule = parse_rule("Bash(rm:*)", ".claude/settings.json", "deny")
    assert rule.matches(call("run_bash", command=command), Path("/p"))
