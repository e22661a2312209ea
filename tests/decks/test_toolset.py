"""A deck may list MCP tools: by name or a server's glob, offered while their server runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zizou.decks.files import PROJECT_DECKS
from zizou.decks.loader import load_decks
from zizou.decks.toolset import deck_registry
from zizou.mcp.tool import McpTool, mcp_tool
from zizou.tools.base import ToolResult

SCHEMAS = "input: string\noutput: string\n"


class Servers:
    def __init__(self, *names: str) -> None:
        taken: set[str] = set()
        self._tools = tuple(
            mcp_tool(server, {"name": tool, "inputSchema": {"type": "object"}}, self, taken)
            for server, tool in (name.split(":") for name in names)
        )

    def tools(self) -> tuple[McpTool, ...]:
        return self._tools

    def missing(self, name: str) -> str | None:
        return None

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult(True, "")


def test_a_deck_lists_mcp_tools_by_name_or_glob(tmp_path: Path) -> None:
    folder = tmp_path / PROJECT_DECKS
    folder.mkdir(parents=True)
    tools = "tools: [read_file, mcp__git__git_status, 'mcp__time__*']\n"
    (folder / "probe.deck.md").write_text(f"---\n{SCHEMAS}{tools}---\nLook.\n")
    found = load_decks(tmp_path, None)
    assert found.problems == []
    deck = found.decks["probe"]
    servers = Servers("git:git_status", "git:git_commit", "time:now", "other:x")
    names = deck_registry(deck, servers).names()
    assert names == ["read_file", "mcp__git__git_status", "mcp__time__now"]
    assert "mcp__git__git_commit" not in names
    assert not deck.reads_only  # an MCP tool may change anything


def test_a_malformed_mcp_name_is_a_problem(tmp_path: Path) -> None:
    folder = tmp_path / PROJECT_DECKS
    folder.mkdir(parents=True)
    (folder / "bad.deck.md").write_text(f"---\n{SCHEMAS}tools: [mcp__oops]\n---\nx\n")
    [problem] = load_decks(tmp_path, None).problems
    assert "unknown tool 'mcp__oops'" in problem.message
