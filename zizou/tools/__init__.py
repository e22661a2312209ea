"""The tool registry. Built-in tools register through it exactly as extensions will."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from zizou.tools.base import Access, Tool, ToolArgs, ToolContext, ToolResult

# The built-in tools: (module, class), in the order the model is shown them.
BUILTIN_TOOLS: tuple[tuple[str, str], ...] = (
    ("read_file", "ReadFile"),
    ("write_file", "WriteFile"),
    ("edit_file", "EditFile"),
    ("replace_window", "ReplaceWindow"),
    ("glob", "Glob"),
    ("grep", "Grep"),
    ("list_dir", "ListDir"),
    ("open_file", "OpenFile"),
    ("run_bash", "RunBash"),
    ("job_output", "JobOutput"),
    ("job_kill", "JobKill"),
    ("read_output", "ReadOutput"),
    ("delete_file", "DeleteFile"),
    ("open_in_workspace", "OpenInWorkspace"),
    ("close_in_workspace", "CloseInWorkspace"),
    ("update_state", "UpdateState"),
    ("get_instructions", "GetInstructions"),
    ("add_context", "AddContext"),
    ("repo_map", "RepoMap"),
)
BUILTIN_MODULES = tuple(module for module, _ in BUILTIN_TOOLS)  # also the tools' names


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
    """A registry holding new instances of the built-in tools (a tool may keep state, such as
    the programs open_file launched: each session has its own)."""
    import importlib

    registry = Registry()
    for module_name, class_name in BUILTIN_TOOLS:
        module = importlib.import_module(f"zizou.tools.{module_name}")
        registry.register(getattr(module, class_name)())
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
