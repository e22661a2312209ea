"""The tool registry. Built-in tools register through it exactly as extensions will."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

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
    ("git_commit", "GitCommit"),
    ("open_in_workspace", "OpenInWorkspace"),
    ("close_in_workspace", "CloseInWorkspace"),
    ("update_state", "UpdateState"),
    ("get_instructions", "GetInstructions"),
    ("add_context", "AddContext"),
    ("repo_map", "RepoMap"),
)
BUILTIN_MODULES = tuple(module for module, _ in BUILTIN_TOOLS)  # also the tools' names


class ToolSource(Protocol):
    """Tools that come and go while a session runs (an MCP server's, once it is ready): asked
    afresh each time the registry is read, from any thread."""

    def tools(self) -> Sequence[Tool[Any]]: ...

    def missing(self, name: str) -> str | None:
        """Why a tool of this source named `name` cannot be called now (its server failed),
        or None when the source never had such a tool."""
        ...


class Registry:
    """Tools by name, in registration order, then those of the attached sources (a source's
    tool never shadows a registered one)."""

    def __init__(self) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        self._sources: list[ToolSource] = []

    def register(self, tool: Tool[Any]) -> None:
        if tool.name in self._tools:
            raise ValueError(f"a tool named {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def attach(self, source: ToolSource) -> None:
        self._sources.append(source)

    def _all(self) -> dict[str, Tool[Any]]:
        if not self._sources:
            return self._tools
        tools = dict(self._tools)
        for source in self._sources:
            for tool in source.tools():
                tools.setdefault(tool.name, tool)
        return tools

    def get(self, name: str) -> Tool[Any] | None:
        found = self._tools.get(name)
        if found is None and self._sources:
            found = self._all().get(name)
        return found

    def names(self) -> list[str]:
        return list(self._all())

    def why_missing(self, name: str) -> str | None:
        """Why `name` is not a tool now although a source knows it (its server stopped)."""
        return next((why for s in self._sources if (why := s.missing(name)) is not None), None)

    def schemas(self) -> list[dict[str, Any]]:
        return [tool.schema() for tool in self._all().values()]

    def __iter__(self) -> Iterator[Tool[Any]]:
        return iter(list(self._all().values()))

    def __len__(self) -> int:
        return len(self._all())


def default_registry(instead: Sequence[Tool[Any]] = ()) -> Registry:
    """A registry holding new instances of the built-in tools (a tool may keep state, such as
    the programs open_file launched: each session has its own); a tool of `instead` takes the
    place of the built-in one of its name (`zizou acp` reads files through the editor)."""
    import importlib

    replacing = {tool.name: tool for tool in instead}
    registry = Registry()
    for module_name, class_name in BUILTIN_TOOLS:
        module = importlib.import_module(f"zizou.tools.{module_name}")
        registry.register(replacing.get(module_name) or getattr(module, class_name)())
    return registry


__all__ = [
    "Access",
    "Registry",
    "Tool",
    "ToolArgs",
    "ToolContext",
    "ToolResult",
    "ToolSource",
    "default_registry",
]
