"""A chained command needs a rule for every program in it: "always allow" offers all of them
(or says why none can be), the headless hint names them all, and each decision says what made
it (the rules that matched, `--yes`, the user's answer) for the debug log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules, decide, rules_from_allow
from zizou.contracts.events import PermissionDecided
from zizou.contracts.protocols import Approval, PermissionRequest, ToolCall
from zizou.contracts.shell_policy import matches_rules, suggest_rules
from zizou.session.unattended import HeadlessApprover
from zizou.tools import ToolContext, ToolResult, default_registry
from zizou.tools.base import Access

TOOLS = frozenset({"read_file", "write_file", "run_bash", "open_file"})
ON = Rules()
OFF = Rules(sandbox="off")


def exec_(command: str) -> Access:
    return Access(kind="exec", command=command)


@pytest.mark.parametrize(
    ("command", "existing", "rules"),
    [
        ("sleep 60; echo finished", (), ("sleep", "echo")),
        ("sleep 60; echo finished", ("sleep",), ("echo",)),
        ("pytest -q tests/test_app.py && git diff --stat", (), ("pytest", "git diff")),
        ("ls -la | wc -l", (), ("ls", "wc")),
        ("git status; git status -s", (), ("git status",)),
        ("pytest -q || pytest -x", (), ("pytest",)),
        ("rm -rf a b; rm -rf a", (), ("rm -rf a",)),
        ("make test && echo ok | tee log", ("echo",), ("make test", "tee log")),
        ("sleep 1; echo $(id)", (), ()),
    ],
)
def test_every_uncovered_segment_gets_its_rule(
    command: str, existing: tuple[str, ...], rules: tuple[str, ...]
) -> None:
    assert suggest_rules(command, existing) == rules
    if rules:
        assert matches_rules(command, (*existing, *rules))


@pytest.mark.parametrize(
    ("command", "rules", "suggested", "scope"),
    [
        ("sleep 60; echo finished", ON, ("sleep", "echo"), "with `sleep` or `echo`, sandboxed"),
        ("sleep 60; echo finished", OFF, ("sleep", "echo"), "`sleep` and `echo` cannot run other"),
        ("cat a | wc -l", OFF, ("cat", "wc"), "starts with `cat` or `wc`, unsandboxed"),
        ("pytest -q && git diff", ON, ("pytest", "git diff"), "`pytest` or `git diff`, sandboxed"),
    ],
)  # fmt: skip
def test_always_offers_every_rule_and_says_what_they_permit(
    command: str, rules: Rules, suggested: tuple[str, ...], scope: str
) -> None:
    decision = decide("run_bash", exec_(command), rules)
    assert decision.verdict == "ask"
    assert decision.suggested_rules == suggested
    assert decision.rule_scope is not None and scope in decision.rule_scope


@pytest.mark.parametrize(
    ("command", "rules", "why"),
    [
        ("sleep 1; git status", OFF, "sandbox is off: `git` can run other programs"),
        ("ls && make test", OFF, "`make` can run other programs"),
        ("sleep 1; echo $(id)", ON, "command substitution"),
        ("ls; rm -rf .git", ON, "`.git`"),
        ("sleep 1; echo hi", Rules(sandbox="missing"), "no sandbox here"),
    ],
)
def test_no_rule_is_offered_when_a_segment_cannot_have_one(
    command: str, rules: Rules, why: str
) -> None:
    decision = decide("run_bash", exec_(command), rules)
    assert decision.verdict == "ask"
    assert decision.suggested_rules == () and decision.rule_scope is None
    assert why in decision.reason


@pytest.mark.parametrize(
    ("allow", "saved", "yes", "command", "by", "rules"),
    [
        (["run_bash:sleep", "run_bash:echo"], [], False, "sleep 0; echo finished", "--allow",
         ("run_bash:sleep", "run_bash:echo")),
        ([], ["sleep", "echo"], False, "sleep 0 && echo x", "saved rule",
         ("run_bash:sleep", "run_bash:echo")),
        (["run_bash:sleep"], ["echo"], False, "sleep 0; echo x", "--allow and saved rule",
         ("run_bash:sleep", "run_bash:echo")),
        (["run_bash"], [], False, "sleep 0; echo x", "--allow", ("run_bash",)),
        ([], [], True, "sleep 0; echo x", "--yes", ()),
        ([], [], True, "echo $(id)", "--yes", ()),
        (["open_file"], [], False, "", "--allow", ("open_file",)),
    ],
)  # fmt: skip
def test_a_decision_names_what_approved_it(
    allow: list[str], saved: list[str], yes: bool, command: str, by: str, rules: tuple[str, ...]
) -> None:
    given = rules_from_allow(allow, TOOLS, yes=yes, saved_prefixes=saved)
    access = Access(kind="open", paths=("a.html",)) if not command else exec_(command)
    decision = decide("open_file" if not command else "run_bash", access, given)
    assert (decision.verdict, decision.by, decision.rules) == ("allow", by, rules)


def test_one_allow_rule_no_longer_approves_the_whole_chain() -> None:
    given = rules_from_allow(["run_bash:sleep"], TOOLS)
    decision = decide("run_bash", exec_("sleep 0; echo finished"), given)
    assert decision.verdict == "ask" and decision.suggested_rules == ("echo",)


def test_a_policy_refusal_says_so() -> None:
    decision = decide("read_file", Access(kind="read", paths=(".env",)), ON)
    assert (decision.verdict, decision.by) == ("deny", "policy")


def request(rules: tuple[str, ...], reason: str = "runs a shell command") -> PermissionRequest:
    return PermissionRequest("c1", "run_bash", "cmd", None, rules, reason=reason, kind="exec")


@pytest.mark.parametrize(
    ("req", "hint"),
    [
        (request(("sleep", "echo")),
         "re-run with --allow 'run_bash:sleep' --allow 'run_bash:echo' added, or with --yes"),
        (request(("rm -rf 'a b'",)), """--allow 'run_bash:rm -rf '"'"'a b'"'"''"""),
        (request((), "no rule can approve this command while the sandbox is off: `git` can"),
         "while the sandbox is off: `git` can; the user can re-run with --yes"),
    ],
)  # fmt: skip
async def test_the_headless_hint_names_every_rule_in_one_line(
    req: PermissionRequest, hint: str
) -> None:
    approval = await HeadlessApprover().ask(req)
    assert (approval.verdict, approval.by) == ("deny", "headless")
    assert approval.reason is not None and hint in approval.reason


def bash(command: str) -> ToolCall:
    return ToolCall("c1", "run_bash", json.dumps({"command": command}))


async def run_call(runner: CallRunner, call: ToolCall) -> list[Any]:
    return [item async for item in runner.run(runner.parse(call))]


@pytest.mark.parametrize(
    ("approval", "by", "reason", "saved"),
    [
        (Approval("always"), "user", "a (always allow)", ("run_bash:sleep", "run_bash:echo")),
        (Approval("once"), "user", "y (allow once)", ()),
        (Approval("deny", "use make"), "user", "use make", ()),
        (Approval("deny", "nobody here", by="headless"), "headless", "nobody here", ()),
    ],
)
async def test_the_runner_records_the_answer_and_always_saves_every_rule(
    tmp_path: Path, approval: Approval, by: str, reason: str, saved: tuple[str, ...]
) -> None:
    ctx = ToolContext(root=tmp_path)
    runner = CallRunner(default_registry(), ctx, CallGates.of(ScriptedApprover([approval]), OFF))
    items = await run_call(runner, bash("sleep 0; echo finished"))
    [decided] = [i for i in items if isinstance(i, PermissionDecided)]
    verdict = "deny" if approval.verdict == "deny" else "allow"
    assert (decided.verdict, decided.by, decided.rules) == (verdict, by, saved)
    assert reason in decided.reason and decided.sandbox == "off"
    assert isinstance(items[-1], ToolResult) and items[-1].ok is (verdict == "allow")
    if saved:  # the same command runs unasked next time, and says which rules let it
        again = await run_call(runner, bash("sleep 0; echo finished"))
        [decided] = [i for i in again if isinstance(i, PermissionDecided)]
        assert (decided.by, decided.rules) == ("saved rule", saved)


async def test_a_plain_read_needs_no_record(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    runner = CallRunner(
        default_registry(), ToolContext(root=tmp_path), CallGates.of(ScriptedApprover(), ON)
    )
    items = await run_call(runner, ToolCall("c1", "read_file", '{"path": "a.txt"}'))
    assert len(items) == 1 and isinstance(items[0], ToolResult) and items[0].ok
