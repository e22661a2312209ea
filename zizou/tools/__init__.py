"""The tool registry. Built-in tools register through it exactly as extensions will."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult

BUILTIN_MODULES = (
    "read_file",
    "write_file",
    "edit_file",
    "glob",
    "grep",
    "list_dir",
    "open_file",
    "run_bash",
    "add_context",
    "repo_map",
)


class Registry:
    """Tools by name, in registration order."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool[Any]] = {}

    def register(self, tool: Tool[Any]) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self._tools.values()]

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)


def default_registry() -> Registry:
    """A registry holding the built-in tools."""
    import importlib

    registry = Registry()
    for module_name in BUILTIN_MODULES:
        module = importlib.import_module(f"zizou.tools.{module_name}")
        registry.register(module.TOOL)
    return registry


__all__ = [
    "Access",
    "Registry",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolResult",
    "default_registry",
]
