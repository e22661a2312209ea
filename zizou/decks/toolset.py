"""The tools a deck's run is given: the built-in ones its `tools` lists, and the MCP servers'
tools it lists (`mcp__git__git_status`, `mcp__git__*`), offered while their server runs."""

from __future__ import annotations

from typing import Any

from zizou.decks.spec import Deck, uses_tool
from zizou.tools import Registry, Tool, ToolSource, default_registry


class _Listed:
    """The tools of `source` (the MCP servers') that a deck lists, as they come and go."""

    def __init__(self, source: ToolSource, tools: tuple[str, ...]) -> None:
        self.source = source
        self.listed = tools

    def tools(self) -> list[Tool[Any]]:
        return [tool for tool in self.source.tools() if uses_tool(self.listed, tool.name)]

    def missing(self, name: str) -> str | None:
        return self.source.missing(name) if uses_tool(self.listed, name) else None


def deck_registry(deck: Deck, extra: ToolSource | None) -> Registry:
    """The built-in tools `deck` lists, and the MCP tools it lists (once their server runs)."""
    registry = Registry()
    for tool in default_registry():
        if tool.name in deck.tools:
            registry.register(tool)
    if extra is not None and any(name.startswith("mcp__") for name in deck.tools):
        registry.attach(_Listed(extra, deck.tools))
    return registry


__all__ = ["deck_registry"]
