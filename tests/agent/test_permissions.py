"""Table tests for the permission policy: paths, commands, rules, --allow and --yes."""

from __future__ import annotations

import pytest

from zizou.agent.permissions import (
    PROTECTED_PATTERNS,
    SECRET_PATTERNS,
    Decision,
    Rules,
    decide,
    is_protected,
    is_secret,
    parse_allow_rule,
    rules_from_allow,
)
from zizou.tools.base import Access

TOOLS = frozenset(
    {
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "list_dir",
        "open_file",
        "run_bash",
        "delete_file",
    }
)


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".git", True),
        (".git/config", True),
        (".git/hooks/pre-commit", True),
        ("./.git/HEAD", True),
        (".GIT/config", True),
        ("vendor/lib/.git/config", True),
        (".zizou", True),
        (".zizou/info.json", True),
        (".zizou/sessions/a.jsonl", True),
        (".env", True),
        (".env.local", True),
        (".env.example", True),
        ("config/.env.production", True),
        (".envrc", True),
        (".gitignore", False),
        (".github/workflows/ci.yml", False),
        ("docs/.zizou/notes.md", False),
        ("src/git/config.py", False),
        ("env/file.py", False),
        ("my.env", False),
        (".venv/bin/activate", False),
        ("README.md", False),
        ("", False),
        (".", False),
    ],
)
def test_is_protected(path: str, expected: bool) -> None:
    assert is_protected(path) is expected


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (".env", True),
        (".env.local", True),
        ("api/.env.production", True),
        (".ENV", True),
        (".envrc", True),
        ("certs/server.pem", True),
        ("SERVER.PEM", True),
        ("id_rsa", True),
        ("keys/id_rsa_backup", True),
        ("id_ed25519", True),
        ("id_ecdsa", True),
        ("id_dsa", True),
        (".env.example", False),
        ("api/.env.sample", False),
        (".env.template", False),
        ("id_rsa.pub", False),
        ("id_ed25519.pub", False),
        ("pem.txt", False),
        ("src/env.py", False),
        (".git/config", False),
        ("README.md", False),
    ],
)
def test_is_secret(path: str, expected: bool) -> None:
    assert is_secret(path) is expected


def test_patterns_are_published() -> None:
    assert "**/.env*" in PROTECTED_PATTERNS
    assert "**/*.pem" in SECRET_PATTERNS


def read(*paths: str) -> Access:
    return Access("read", paths)


def write(*paths: str) -> Access:
    return Access("write", paths)


def run(command: str) -> Access:
    return Access("exec", command=command)


def delete(*paths: str) -> Access:
    return Access("delete", paths)


OPEN = Access("open", ("report.html",))
NONE = Rules()
YES = Rules(yes=True)
SECRETS = Rules(allow_secret_reads=True)
GIT = Rules(bash_prefixes=("git status", "pytest"))
BASH = Rules(allowed_tools=frozenset({"run_bash"}))
WRITES = Rules(allowed_tools=frozenset({"write_file"}))
OPENS = Rules(allowed_tools=frozenset({"open_file"}))
BASH_SECRETS = Rules(frozenset({"run_bash"}), allow_secret_reads=True)
DELETES = Rules(allowed_tools=frozenset({"delete_file"}))
EVERYTHING = Rules(TOOLS, ("git status",), yes=True)


@pytest.mark.parametrize(
    ("tool", "access", "rules", "verdict", "protected"),
    [
        # a tool that declares nothing asks, unless --allow or --yes approved it
        ("mcp_search", Access("undeclared"), NONE, "ask", False),
        ("mcp_search", Access("undeclared"), YES, "allow", False),
        ("mcp_search", Access("undeclared"), Rules(frozenset({"mcp_search"})), "allow", False),
        ("web_fetch", Access("network"), NONE, "ask", False),
        # plain reads
        ("read_file", read("src/app.py"), NONE, "allow", False),
        ("read_file", read(".git/config"), NONE, "allow", False),
        ("read_file", read(".env.example"), NONE, "allow", False),
        # secret reads are refused unless allowed
        ("read_file", read(".env"), NONE, "deny", False),
        ("read_file", read("deploy/key.pem"), NONE, "deny", False),
        ("read_file", read("a.py", "id_rsa"), NONE, "deny", False),
        ("read_file", read(".env"), YES, "deny", False),
        ("read_file", read(".env"), EVERYTHING, "deny", False),
        ("read_file", read(".env"), SECRETS, "allow", False),
        # writes: allowed, except protected paths, which always ask
        ("write_file", write("src/app.py"), NONE, "allow", False),
        ("write_file", write(".gitignore"), NONE, "allow", False),
        ("write_file", write(".git/hooks/pre-commit"), NONE, "ask", True),
        ("edit_file", write(".git/config"), NONE, "ask", True),
        ("write_file", write(".git"), NONE, "ask", True),
        ("write_file", write(".zizou/info.json"), NONE, "ask", True),
        ("write_file", write("sub/.env"), NONE, "ask", True),
        ("write_file", write("a.py", ".env.local"), NONE, "ask", True),
        ("write_file", write(".env"), YES, "ask", True),
        ("write_file", write(".env"), WRITES, "ask", True),
        ("write_file", write(".git/config"), EVERYTHING, "ask", True),
        ("write_file", write(".env"), SECRETS, "ask", True),
        # deletes ask unless --allow delete_file or --yes; protected and secret files always ask
        ("delete_file", delete("old.py"), NONE, "ask", False),
        ("delete_file", delete("old.py"), WRITES, "ask", False),
        ("delete_file", delete("old.py"), BASH, "ask", False),
        ("delete_file", delete("old.py"), DELETES, "allow", False),
        ("delete_file", delete("old.py"), YES, "allow", False),
        ("delete_file", delete("docs/.zizou/notes.md"), DELETES, "allow", False),
        ("delete_file", delete(".env"), DELETES, "ask", True),
        ("delete_file", delete("config/.env.production"), YES, "ask", True),
        ("delete_file", delete("deploy/key.pem"), EVERYTHING, "ask", True),
        ("delete_file", delete("keys/id_rsa"), Rules(TOOLS, allow_secret_reads=True), "ask", True),
        ("delete_file", delete(".git/config"), EVERYTHING, "ask", True),
        ("delete_file", delete(".zizou/info.json"), DELETES, "ask", True),
        # open_file asks unless allowed
        ("open_file", OPEN, NONE, "ask", False),
        ("open_file", OPEN, BASH, "ask", False),
        ("open_file", OPEN, OPENS, "allow", False),
        ("open_file", OPEN, YES, "allow", False),
        # commands
        ("run_bash", run("git status"), NONE, "ask", False),
        ("run_bash", run("git status -s"), GIT, "allow", False),
        ("run_bash", run("pytest -q && git status"), GIT, "allow", False),
        ("run_bash", run("git status; rm -rf /"), GIT, "ask", False),
        ("run_bash", run("git stash"), GIT, "ask", False),
        ("run_bash", run("git status $(rm -rf ~)"), GIT, "ask", False),
        ("run_bash", run("git status > out.txt"), GIT, "ask", False),
        ("run_bash", run("git status 2>&1"), GIT, "allow", False),
        ("run_bash", run("rm -rf build"), BASH, "allow", False),
        ("run_bash", run("eval ls"), BASH, "ask", False),
        ("run_bash", run("bash -c ls"), BASH, "ask", False),
        ("run_bash", run("rm -rf build"), YES, "allow", False),
        ("run_bash", run("eval ls"), YES, "allow", False),
        ("run_bash", run("git status 'x"), YES, "allow", False),
        ("run_bash", run(""), NONE, "ask", False),
        ("run_bash", Access("exec"), YES, "allow", False),
        ("run_bash", Access("exec"), BASH, "ask", False),
        ("open_file", Access("open"), NONE, "ask", False),
        # a job zizou started: reading its output or stopping it never asks
        ("job_output", Access("read"), NONE, "allow", False),
        ("read_output", Access("read"), NONE, "allow", False),
        ("job_kill", Access("job"), NONE, "allow", False),
        # commands naming protected or secret paths ask, whatever the rules
        ("run_bash", run("rm -rf .git"), YES, "ask", True),
        ("run_bash", run("echo x > .git/hooks/pre-commit"), YES, "ask", True),
        ("run_bash", run("cat .env"), Rules(bash_prefixes=("cat",)), "ask", True),
        ("run_bash", run('cat "$HOME/.ssh/id_rsa"'), EVERYTHING, "ask", True),
        ("run_bash", run("ls .zizou"), BASH, "ask", True),
        ("run_bash", run("cat deploy/key.pem"), SECRETS, "ask", False),
        ("run_bash", run("cat deploy/key.pem"), BASH_SECRETS, "allow", False),
        ("run_bash", run("git status"), EVERYTHING, "allow", False),
        ("run_bash", run("cat .gitignore .github/x.yml"), BASH, "allow", False),
    ],
)  # fmt: skip
def test_decide(tool: str, access: Access, rules: Rules, verdict: str, protected: bool) -> None:
    decision = decide(tool, access, rules)
    assert decision.verdict == verdict, decision.reason
    assert decision.protected is protected
    assert decision.reason


@pytest.mark.parametrize(
    ("command", "rules", "suggested"),
    [
        ("git status -s", NONE, ("git status",)),
        ("pytest -q && git diff", GIT, ("git diff",)),
        ("npm run test", NONE, ("npm run test",)),
        ("eval ls", NONE, ()),
        ("git status $(id)", GIT, ()),
    ],
)
def test_decide_suggests_a_rule(command: str, rules: Rules, suggested: tuple[str, ...]) -> None:
    decision = decide("run_bash", run(command), rules)
    assert decision.verdict == "ask"
    assert decision.suggested_rules == suggested


@pytest.mark.parametrize(
    ("access", "fragment"),
    [
        (read(".env"), "`.env` may hold secrets"),
        (read("k/id_rsa"), "`**/id_rsa*`"),
        (write(".git/config"), "`.git/config` is protected"),
        (run("eval ls"), "eval"),
        (run("git status > out.txt"), "into a file"),
        (run("cat .env"), "`.env`"),
        (OPEN, "`report.html`"),
        (delete("old.py"), "`old.py` (its bytes are kept in .zizou/trash/)"),
        (delete("k/id_rsa"), "deleting it always asks"),
    ],
)
def test_reasons_name_the_cause(access: Access, fragment: str) -> None:
    assert fragment in decide("any_tool", access, NONE).reason


def test_decision_is_frozen() -> None:
    decision = Decision("allow", "ok")
    with pytest.raises(AttributeError):
        decision.verdict = "deny"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("open_file", ("open_file", None)),
        (" run_bash ", ("run_bash", None)),
        ("run_bash:pytest", ("run_bash", "pytest")),
        ("run_bash: git status ", ("run_bash", "git status")),
        ("run_bash:npm run test", ("run_bash", "npm run test")),
        ("run_bash:git log:x", ("run_bash", "git log:x")),
    ],
)
def test_parse_allow_rule(text: str, parsed: tuple[str, str | None]) -> None:
    assert parse_allow_rule(text, TOOLS) == parsed


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "unknown tool"),
        ("nope", "unknown tool 'nope'"),
        ("Run_Bash", "unknown tool"),
        ("open_file:x", "only run_bash takes a :PREFIX"),
        ("run_bash:", "empty"),
        ("run_bash:   ", "empty"),
        ("run_bash:git status && rm -rf /", "one command prefix"),
        ("run_bash:git status; rm", "one command prefix"),
        ("run_bash:ls > f", "one command prefix"),
        ("run_bash:echo $(id)", "substitutions"),
        ("run_bash:echo 'x", "unterminated"),
    ],
)
def test_parse_allow_rule_rejects(text: str, fragment: str) -> None:
    with pytest.raises(ValueError, match="run_bash:PREFIX") as info:
        parse_allow_rule(text, TOOLS)
    assert fragment in str(info.value)


def test_rules_from_allow() -> None:
    rules = rules_from_allow(
        ["open_file", "run_bash:pytest", "run_bash:git status"],
        TOOLS,
        yes=True,
        saved_prefixes=["make test"],
    )
    assert rules == Rules(
        allowed_tools=frozenset({"open_file"}),
        bash_prefixes=("make test", "pytest", "git status"),
        flag_prefixes=("pytest", "git status"),
        yes=True,
    )
    chained = run("make test && pytest -q")
    assert decide("run_bash", chained, Rules(bash_prefixes=rules.bash_prefixes)).verdict == "allow"


def test_rules_from_allow_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="unknown tool"):
        rules_from_allow(["run_bash:ls", "bogus"], TOOLS)


def test_an_allowed_delete_says_what_allowed_it() -> None:
    decision = decide("delete_file", delete("old.py"), DELETES)
    assert (decision.by, decision.rules) == ("--allow", ("delete_file",))
    assert decide("delete_file", delete("old.py"), YES).by == "--yes"


MCP = Access(kind="mcp")


@pytest.mark.parametrize(
    ("rules", "tool", "verdict", "by"),
    [
        (Rules(), "mcp__git__git_status", "ask", "policy"),
        (
            Rules(allowed_tools=frozenset({"mcp__git__git_status"})),
            "mcp__git__git_status",
            "allow",
            "--allow",
        ),
        (Rules(allowed_tools=frozenset({"mcp__git__*"})), "mcp__git__git_log", "allow", "--allow"),
        (Rules(allowed_tools=frozenset({"mcp__git__*"})), "mcp__gitx__git_log", "ask", "policy"),
        (Rules(allowed_tools=frozenset({"mcp__git__git_*"})), "mcp__git__commit", "ask", "policy"),
        (Rules(saved_tools=("mcp__git__git_log",)), "mcp__git__git_log", "allow", "saved rule"),
        (Rules(yes=True), "mcp__git__git_commit", "allow", "--yes"),
        # An MCP call is never approved by another kind of rule.
        (Rules(allowed_tools=frozenset({"run_bash"})), "mcp__git__git_status", "ask", "policy"),
    ],
)
def test_an_mcp_call_asks_unless_a_rule_names_it(
    rules: Rules, tool: str, verdict: str, by: str
) -> None:
    decision = decide(tool, MCP, rules)
    assert (decision.verdict, decision.by) == (verdict, by)


def test_asking_for_an_mcp_call_offers_to_always_allow_exactly_that_tool() -> None:
    decision = decide("mcp__git__git_commit", MCP, Rules())
    assert decision.suggested_rules == ("mcp__git__git_commit",)
    assert "MCP server git" in decision.reason


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("mcp__git__git_status", "mcp__git__git_status"),
        ("mcp__git__*", "mcp__git__*"),
        ("mcp__git", "mcp__git__*"),  # every tool of the server, as Claude Code writes it
        (" mcp__my-server__tool ", "mcp__my-server__tool"),
    ],
)
def test_allow_takes_mcp_rules(text: str, rule: str) -> None:
    assert parse_allow_rule(text, TOOLS) == (rule, None)
    assert rule in rules_from_allow([text], TOOLS).allowed_tools


@pytest.mark.parametrize("text", ["mcp__", "mcp____x", "mcp__git__ x", "mcp__git__a;b"])
def test_a_malformed_mcp_rule_names_the_forms(text: str) -> None:
    with pytest.raises(ValueError, match="an MCP rule is mcp__SERVER__TOOL"):
        parse_allow_rule(text, TOOLS)
