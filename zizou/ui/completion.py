"""What the prompt can complete: `/commands` at the start, and `@files` anywhere.

`completion_context` is pure (the text of a line and the cursor column in, the token out);
`Completer` holds the project's file list, which is read in a background thread on first use.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zizou.ui.fuzzy import rank
from zizou.ui.slash import completions

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
            return [
                Suggestion(f"/{c.name} ", c.usage, c.help, not c.args)
                for c in completions(context.query)
            ]
        if self.files is None:
            return []
        return [
            Suggestion(f"@{path} ", path) for path in rank(context.query, self.files, FILE_LIMIT)
        ]


__all__ = ["Completer", "Context", "Suggestion", "completion_context"]
