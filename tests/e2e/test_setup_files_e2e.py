"""The real `zizou -p` in a project set up for other agents: its CLAUDE.md with an import, an
AGENTS.md with the same text, a nested sub/CLAUDE.md and the user's ~/.claude/CLAUDE.md reach
the request as the user keeps them, each once, the nested one only once the model works there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

RULES = "Always run make check before you answer.\n@docs/style.md\n"


def system_prompt(request: dict[str, Any]) -> str:
    content = request["messages"][0]["content"]
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content)
    return str(content)


def claude_project(project: Path, home: Path) -> None:
    (project / "CLAUDE.md").write_text(RULES)
    (project / "AGENTS.md").write_text(RULES)
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("Style: four-space indents.\n")
    (project / "sub").mkdir()
    (project / "sub" / "CLAUDE.md").write_text("In sub, prefer dataclasses.\n")
    (project / "sub" / "thing.py").write_text("x = 1\n")
    (home / ".claude").mkdir(parents=True)
    (home / ".claude" / "CLAUDE.md").write_text("The user likes short answers.\n")


def test_instruction_files_reach_the_request_once_and_nested_ones_when_used(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    claude_project(project, agents_home)
    replies = [
        {"tool_calls": [{"name": "read_file", "arguments": '{"path": "sub/thing.py"}'}]},
        {"text": "Done."},
    ]
    with LoopbackServer(replies) as srv:
        args = ["-p", "look at sub", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home))
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    first, second = (system_prompt(r) for r in requests)
    assert first.count("Always run make check") == 1
    assert "Project instructions from AGENTS.md:" in first
    assert "CLAUDE.md has the same text as AGENTS.md: sent once" in first
    assert "Imported by AGENTS.md, from docs/style.md:\nStyle: four-space indents." in first
    assert "User instructions from ~/.claude/CLAUDE.md:\nThe user likes short answers." in first
    assert "prefer dataclasses" not in first
    assert "Instructions for files under sub/, from sub/CLAUDE.md:" in second
    assert second.count("prefer dataclasses") == 1
    # The stable prefix did not move when the nested file started to apply.
    assert first.startswith(second[: second.index("# NESTED INSTRUCTIONS")])


def test_a_bad_import_is_named_and_the_rest_loads(
    project: Path, zizou_home: Path, agents_home: Path
) -> None:
    (project / ".env").write_text("TOKEN=hunter2-secret\n")
    (project / "env-link.md").symlink_to(".env")
    (project / "CLAUDE.md").write_text("Rule one.\n@a.md\n\n@env-link.md\n")
    (project / "a.md").write_text("Rule a.\n@b.md\n")
    (project / "b.md").write_text("Rule b.\n@a.md\n")
    with LoopbackServer([{"text": "ok"}]) as srv:
        args = ["-p", "hi", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home, ZIZOU_AGENTS_HOME=str(agents_home))
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    system = system_prompt(requests[0])
    assert "hunter2-secret" not in str(requests)
    assert "Rule one." in system and "Rule a." in system and "Rule b." in system
    assert "b.md line 2: @a.md refused: an import loop back to a.md" in system
    assert "env-link.md skipped" in system and "may hold secrets" in system
