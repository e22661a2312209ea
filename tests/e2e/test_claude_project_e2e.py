"""A scratch project set up the way a Claude Code user's is, then the Codex and opencode
equivalents, through the real `zizou -p` against the loopback server: the instructions reach the
request (the nested one once the model works in its folder), `/review 42` sends the command's
body with 42, the sub-agent is offered and runs, the settings' hook blocks `rm` once trusted
(skipped with a warning before), the deny rule refuses a read, the project's allow rule approves
nothing, and `zizou config --sources` lists all of it, malformed files named with their line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

BLOCK_RM = """if grep -q '"command": "rm '; then
  echo "rm is blocked here: move files to trash/ instead" >&2
  exit 2
fi
"""
SETTINGS = {
    "permissions": {"deny": ["Read(./secrets/**)"], "allow": ["Bash(touch:*)"]},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "bash .claude/hooks/block-rm.sh"}],
            }
        ]
    },
}
MAIN = "^(?!.*You are the deck )"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"match": MAIN, "tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def run(
    project: Path, home: Path, agents: Path, script: list[dict[str, Any]], *args: str
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        more = ["--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, *more], project, home, ZIZOU_AGENTS_HOME=str(agents))
        return result, srv.chat_requests


def system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def claude_project(project: Path) -> None:
    (project / "CLAUDE.md").write_text("Run make check before you answer.\n@docs/style.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("Style: four-space indents.\n")
    (project / "api").mkdir()
    (project / "api" / "CLAUDE.md").write_text("In api/, every handler is async.\n")
    (project / "api" / "handlers.py").write_text("async def get(): ...\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "token.txt").write_text("hunter2-very-secret\n")
    (project / "old.log").write_text("x\n")
    claude = project / ".claude"
    for folder in ("commands", "agents", "hooks"):
        (claude / folder).mkdir(parents=True)
    (claude / "commands" / "review.md").write_text(
        "---\ndescription: Review a pull request\n---\nReview pull request #$ARGUMENTS.\n"
    )
    (claude / "agents" / "tester.md").write_text(
        "---\nname: tester\ndescription: Runs the tests.\ntools: Read, Bash\n---\n"
        "You run the tests and report failures.\n"
    )
    (claude / "hooks" / "block-rm.sh").write_text(BLOCK_RM)
    (claude / "settings.json").write_text(json.dumps(SETTINGS, indent=2))


SCRIPT = [
    call("read_file", path="api/handlers.py"),
    call("tester", input="the api"),
    {"match": "You are the deck tester,", "text": "all tests pass"},
    call("run_bash", command="rm old.log"),
    call("read_file", path="secrets/token.txt"),
    call("run_bash", command="touch made.txt"),
    {"match": MAIN, "text": "Reviewed."},
]


def test_a_claude_code_project_works_unchanged(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    claude_project(project)
    result, requests = run(project, zizou_home, agents_home, SCRIPT, "-p", "/review 42")
    assert result.code == 0, result.stderr
    main = [r for r in requests if "You are the deck " not in json.dumps(r)]
    first, last = main[0], main[-1]
    assert first["messages"][-1]["content"] == "Review pull request #42."
    assert "Run make check" in system(first) and "four-space indents" in system(first)
    assert "every handler is async" not in system(first)
    assert "every handler is async" in system(main[1])  # once the model read under api/
    assert "tester" in {t["function"]["name"] for t in first["tools"]}
    assert "all tests pass" in results(last)[1]
    assert "the hook .claude/settings.json#PreToolUse.1" in result.stderr  # untrusted: skipped
    assert "rm is blocked" not in results(last)[2]
    assert "refused by the deny rule Read(./secrets/**)" in results(last)[3]
    assert "hunter2" not in json.dumps(requests)
    assert "the user did not approve" in results(last)[4]  # the project's allow: nothing
    assert "the allow rule Bash(touch:*) approves nothing" in result.stderr
    assert (project / "old.log").exists() and not (project / "made.txt").exists()
    log = (project / "zizou-debug.log").read_text()
    assert "SETUP what was loaded" in log and "/review · .claude/commands/review.md" in log

    args = ("-p", "/review 42", "--trust-hooks")
    result, requests = run(project, zizou_home, agents_home, SCRIPT, *args)
    assert result.code == 0, result.stderr
    blocked = results(requests[-1])[2]
    assert "rm is blocked here: move files to trash/ instead" in blocked

    (project / "CLAUDE.md").write_text("Loops: @docs/loop.md\n")
    (project / "docs" / "loop.md").write_text("Back: @../CLAUDE.md\n")
    (project / ".claude" / "commands" / "bad.md").write_text("---\ndescription: open\n")
    (project / ".claude" / "settings.local.json").write_text('{\n  "hooks": [\n}')
    listed = run_cli(
        ["config", "--sources"], project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home)
    )
    assert listed.code == 0, listed.stderr
    text = listed.stdout
    for line in (
        "CLAUDE.md · ~",
        "docs/loop.md · ~",
        "api/CLAUDE.md · ~",
        "/review · .claude/commands/review.md",
        "tester · .claude/agents/tester.md",
        ".claude/settings.json · ~",
        "PreToolUse Bash · 'bash .claude/hooks/block-rm.sh' · trusted, runs",
        "deny Read(./secrets/**) (.claude/settings.json)",
        "the allow rule Bash(touch:*) approves nothing",
        "docs/loop.md line 1: @../CLAUDE.md refused: an import loop",
        ".claude/commands/bad.md line 1: the front matter's `---` is never closed",
        ".claude/settings.local.json line 3: not JSON",
    ):
        assert line in text, f"{line!r} not in:\n{text}"


def test_a_codex_users_setup_works_unchanged(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (agents_home / ".codex" / "prompts").mkdir(parents=True)
    (agents_home / ".codex" / "AGENTS.md").write_text("The user wants terse answers.\n")
    (agents_home / ".codex" / "prompts" / "fix.md").write_text("Fix issue $1 in $2.\n")
    (project / "AGENTS.md").write_text("Tests live in tests/.\n")
    (project / "lib").mkdir()
    (project / "lib" / "AGENTS.md").write_text("lib/ is pure functions only.\n")
    (project / "lib" / "core.py").write_text("x = 1\n")
    script = [call("read_file", path="lib/core.py"), {"text": "Fixed."}]
    result, requests = run(project, zizou_home, agents_home, script, "-p", "/fix 7 lib/core.py")
    assert result.code == 0, result.stderr
    first, second = requests
    assert first["messages"][-1]["content"] == "Fix issue 7 in lib/core.py."
    assert "User instructions from ~/.codex/AGENTS.md:\nThe user wants terse answers." in system(
        first
    )
    assert "Tests live in tests/." in system(first)
    assert "pure functions" not in system(first) and "pure functions" in system(second)
    listed = run_cli(
        ["config", "--sources"], project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home)
    )
    assert "~/.codex/AGENTS.md · ~" in listed.stdout
    assert "/fix · ~/.codex/prompts/fix.md" in listed.stdout
    assert "lib/AGENTS.md · ~" in listed.stdout


def test_an_opencode_users_setup_works_unchanged(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (project / "AGENTS.md").write_text("Use the repository's Makefile.\n")
    (project / ".opencode" / "command").mkdir(parents=True)
    (project / ".opencode" / "agent").mkdir(parents=True)
    (project / ".opencode" / "command" / "explain.md").write_text(
        "---\ndescription: Explain a module\n---\nExplain $ARGUMENTS to a newcomer.\n"
    )
    (project / ".opencode" / "agent" / "docs-writer.md").write_text(
        "---\ndescription: Writes documentation.\n---\nYou write clear docs.\n"
    )
    script = [
        call("docs-writer", input="the parser"),
        {"match": "You are the deck docs-writer,", "text": "docs written"},
        {"match": MAIN, "text": "Explained."},
    ]
    result, requests = run(project, zizou_home, agents_home, script, "-p", "/explain the parser")
    assert result.code == 0, result.stderr
    first = requests[0]
    assert first["messages"][-1]["content"] == "Explain the parser to a newcomer."
    assert "Use the repository's Makefile." in system(first)
    assert "docs-writer" in {t["function"]["name"] for t in first["tools"]}
    assert "docs written" in json.dumps(requests[-1])
    listed = run_cli(
        ["config", "--sources"], project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home)
    )
    assert "/explain · .opencode/command/explain.md" in listed.stdout
    assert "docs-writer · .opencode/agent/docs-writer.md" in listed.stdout


def test_an_import_loop_is_named_with_its_line_as_the_run_starts_and_the_rest_loads(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (project / "CLAUDE.md").write_text("Be brief.\n\nSee @docs/a.md\n")
    (project / "docs").mkdir()
    (project / "docs" / "a.md").write_text("Style A.\n@b.md\n")
    (project / "docs" / "b.md").write_text("Style B.\n@a.md\n")
    result, requests = run(project, zizou_home, agents_home, [{"text": "ok"}], "-p", "hi")
    assert result.code == 0, result.stderr
    assert "docs/b.md line 2: @a.md refused: an import loop back to docs/a.md" in result.stderr
    prompt = system(requests[0])
    assert "Be brief." in prompt and "Style A." in prompt and "Style B." in prompt
