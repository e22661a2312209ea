"""Permission modes: ask (edits and commands ask), accept-edits (today's default: commands ask),
auto (any command the sandbox holds runs; without a sandbox it asks, and says why)."""

from __future__ import annotations

import pytest

from zizou.agent.permissions import AUTO_REASON, Rules, decide
from zizou.tools.base import Access


def run(command: str) -> Access:
    return Access(kind="exec", command=command)


def write(path: str) -> Access:
    return Access(kind="write", paths=(path,))


@pytest.mark.parametrize("command", ["touch made.txt", "pytest -q", "eval echo hi", "ls > out"])
def test_auto_runs_any_command_the_sandbox_holds(command: str) -> None:
    decision = decide("run_bash", run(command), Rules(permission_mode="auto"))
    assert (decision.verdict, decision.reason, decision.by) == ("allow", AUTO_REASON, "auto mode")


def test_auto_still_asks_for_a_protected_or_secret_path() -> None:
    decision = decide("run_bash", run("rm -rf .git"), Rules(permission_mode="auto"))
    assert decision.verdict == "ask" and decision.protected


@pytest.mark.parametrize("sandbox", ["off", "missing"])
def test_auto_without_the_sandbox_asks_and_says_why(sandbox: str) -> None:
    rules = Rules(permission_mode="auto", sandbox=sandbox)  # type: ignore[arg-type]
    decision = decide("run_bash", run("touch made.txt"), rules)
    assert decision.verdict == "ask" and "only in the sandbox" in decision.reason


def test_auto_asks_for_an_mcp_tool_still() -> None:
    access = Access(kind="mcp")
    assert decide("mcp__git__git_commit", access, Rules(permission_mode="auto")).verdict == "ask"


def test_ask_mode_asks_before_an_edit_and_accept_edits_does_not() -> None:
    assert decide("write_file", write("a.py"), Rules(permission_mode="ask")).verdict == "ask"
    assert decide("write_file", write("a.py"), Rules()).verdict == "allow"
    allowed = Rules(permission_mode="ask", allowed_tools=frozenset({"write_file"}))
    assert decide("write_file", write("a.py"), allowed).by == "--allow"
    assert decide("write_file", write("a.py"), Rules(permission_mode="ask", yes=True)).by == "--yes"


def test_accept_edits_keeps_commands_asking() -> None:
    assert decide("run_bash", run("touch made.txt"), Rules()).verdict == "ask"
