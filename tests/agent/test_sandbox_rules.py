"""How far a rule reaches depends on the sandbox: table tests for the policy with the sandbox on,
missing (none could be had here) and off (the user turned it off)."""

from __future__ import annotations

import pytest

from zizou.agent.permissions import Rules, decide, parse_allow_rule, rule_scope, usable_prefixes
from zizou.contracts.shell_policy import widenable_program
from zizou.tools.base import Access

TOOLS = frozenset({"read_file", "write_file", "run_bash", "open_file"})


def exec_(command: str) -> Access:
    return Access(kind="exec", command=command)


@pytest.mark.parametrize(
    ("prefix", "program"),
    [
        ("git", "git"),
        ("git diff", "git"),
        ("git status", "git"),
        ("pytest", "pytest"),
        ("make test", "make"),
        ("npm run test", "npm"),
        ("find", "find"),
        ("xargs", "xargs"),
        ("env", "env"),
        ("sed -n", "sed"),
        ("./cat", "./cat"),
        ("FOO=1 cat", "FOO=1"),
        ("ls", None),
        ("cat", None),
        ("grep -rn", None),
        ("wc -l", None),
    ],
)
def test_which_rules_their_arguments_can_widen(prefix: str, program: str | None) -> None:
    assert widenable_program(prefix) == program


@pytest.mark.parametrize(
    ("text", "sandbox", "fragment"),
    [
        ("run_bash:git", "off", "`git` can run other programs"),
        ("run_bash:git diff", "off", "accepted only with the sandbox on"),
        ("run_bash:pytest", "off", "conftest.py"),
        ("run_bash", "off", "approves every command"),
        ("run_bash", "missing", "there is no sandbox here"),
        ("run_bash:ls", "missing", "no rule applies"),
        ("run_bash:pytest", "missing", "install bubblewrap"),
    ],
)
def test_widening_rules_are_refused_without_the_sandbox(
    text: str, sandbox: str, fragment: str
) -> None:
    with pytest.raises(ValueError, match="sandbox") as info:
        parse_allow_rule(text, TOOLS, sandbox)  # type: ignore[arg-type]
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    ("text", "sandbox"),
    [("run_bash:git diff", "on"), ("run_bash:pytest", "on"), ("run_bash", "on"),
     ("run_bash:ls", "off"), ("run_bash:cat", "off")],
)  # fmt: skip
def test_rules_accepted_as_the_sandbox_allows(text: str, sandbox: str) -> None:
    parse_allow_rule(text, TOOLS, sandbox)  # type: ignore[arg-type]


def test_without_a_sandbox_every_command_asks_and_no_rule_applies() -> None:
    rules = Rules(bash_prefixes=("ls", "pytest"), allowed_tools=frozenset({"run_bash"}))
    missing = Rules(**{**rules.__dict__, "sandbox": "missing"})
    assert decide("run_bash", exec_("ls -la"), rules).verdict == "allow"
    decision = decide("run_bash", exec_("ls -la"), missing)
    assert decision.verdict == "ask" and "no sandbox" in decision.reason
    assert decision.suggested_rules == ()
    yes = Rules(sandbox="missing", yes=True)
    assert decide("run_bash", exec_("pytest"), yes).verdict == "allow"


def test_with_the_sandbox_off_only_unwidenable_saved_rules_apply() -> None:
    off = Rules(bash_prefixes=("ls", "git status", "pytest"), sandbox="off")
    assert usable_prefixes(off) == ("ls",)
    assert decide("run_bash", exec_("ls src"), off).verdict == "allow"
    assert decide("run_bash", exec_("git status"), off).verdict == "ask"
    decision = decide("run_bash", exec_("pytest -q"), off)
    assert decision.verdict == "ask" and decision.suggested_rules == ()
    assert decide("run_bash", exec_("wc -l x"), off).suggested_rules == ("wc",)


def test_the_offered_rule_says_what_it_permits() -> None:
    on = decide("run_bash", exec_("git diff HEAD"), Rules())
    assert on.suggested_rules == ("git diff",)
    assert on.rule_scope is not None and "sandboxed" in on.rule_scope
    assert ".git/" in on.rule_scope and "no network" in on.rule_scope
    off = rule_scope(("cat",), Rules(sandbox="off"))
    assert off is not None and "unsandboxed" in off and "cannot run other programs" in off


def test_a_protected_word_still_asks_under_yes_though_the_scan_is_best_effort() -> None:
    rules = Rules(yes=True)
    assert decide("run_bash", exec_("rm -rf .git"), rules).verdict == "ask"
    # a glob defeats the word scan: this is why the sandbox, not the scan, protects .env
    assert decide("run_bash", exec_("cat .en?"), rules).verdict == "allow"
