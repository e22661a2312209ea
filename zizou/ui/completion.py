"""What the prompt can complete: `/commands` at the start (an MCP server's prompts among them),
and `@files` anywhere (an MCP server's resources among them, as `@SERVER:URI`).

`completion_context` is pure (the text of a line and the cursor column in, the token out);
`Completer` holds the project's file list, which is read in a background thread on first use.
The slash commands are looked up when `/` is first typed: they are declared as the app loads its
controllers, in a thread once the first frame is up, and typed sooner, `/` waits for that.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from zizou.ui.fuzzy import rank

if TYPE_CHECKING:
    from zizou.mcp.setup import McpSetup

FILE_LIMIT = 8


@dataclass(frozen=True)
class Context:
    kind: Literal["command", "file"]
    query: str
    start: int  # column where the token (with its `/` or `@`) starts
    end: int  # column where it ends


@dataclass(frozen=True)
class Suggestion:
    value: str  # what replaces the token
    label: str
    help: str = ""
    complete: bool = False  # Enter sends it at once (a command that takes no arguments)
    file: bool = True  # a file of the project, opened in the workspace when picked


def completion_context(line: str, column: int, first_line: bool) -> Context | None:
    """The token at `column` that can be completed, if any."""
    before = line[:column]
    if first_line and before.startswith("/") and not any(c.isspace() for c in before):
        end = len(line.split(maxsplit=1)[0]) if line.strip() else column
        return Context("command", before[1:], 0, max(end, column))
    start = max(before.rfind(" "), before.rfind("\t")) + 1
    word = before[start:]
    if word.startswith("@"):
        rest = line[column:]
        end = column + len(rest.split(maxsplit=1)[0]) if rest and not rest[0].isspace() else column
        return Context("file", word[1:], start, end)
    return None


class Completer:
    """Suggestions for a context. Files are listed once, in a thread, and then ranked."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.files: list[str] | None = None
        self.mcp: McpSetup | None = None  # the MCP servers, once the session is open
        self._lock = threading.Lock()

    def load_files(self) -> list[str]:
        """List the project's files (git ls-files, else a gitignore-aware walk). Blocking."""
        from zizou.ignore import project_files

        with self._lock:
            if self.files is None:
                try:
                    self.files = project_files(self.root, self.root.resolve())
                except OSError:
                    self.files = []
            return self.files

    def suggest(self, context: Context) -> list[Suggestion]:
        if context.kind == "command":
            from zizou.ui.slash import completions

            return (
                [
                    Suggestion(f"/{c.name} ", c.usage, c.help, not c.args)
                    for c in completions(context.query)
                ]
                + self._file_commands(context.query)
                + self._prompts(context.query)
            )
        resources = self._resources()
        names = [*(self.files or ()), *resources]
        return [
            Suggestion(f"@{name} ", name, resources.get(name, ""), file=name not in resources)
            for name in rank(context.query, names, FILE_LIMIT)
        ]

    def _file_commands(self, query: str) -> list[Suggestion]:
        """The command files (`.claude/commands` and the like) whose name starts with `query`."""
        from zizou.ui.slash import file_commands

        found = file_commands(self.root).commands.values()
        return [
            Suggestion(f"/{c.name} ", c.usage, c.help, not c.argument_hint)
            for c in found
            if c.name.lower().startswith(query.lower())
        ]

    def _prompts(self, query: str) -> list[Suggestion]:
        """The MCP servers' prompts whose command starts with `query`."""
        if self.mcp is None or not "mcp__".startswith(query[:5]):
            return []
        from zizou.mcp.mentions import prompt_commands

        found = prompt_commands(self.mcp.servers.statuses()).values()
        return [
            Suggestion(f"/{c.command} ", c.usage, c.description, not c.arguments)
            for c in found
            if c.command.startswith(query)
        ]

    def _resources(self) -> dict[str, str]:
        """`SERVER:URI` of the MCP servers' resources, with their names."""
        if self.mcp is None:
            return {}
        from zizou.mcp.mentions import resource_choices

        return dict(resource_choices(self.mcp.servers.statuses()))


__all__ = ["Completer", "Context", "Suggestion", "completion_context"]
