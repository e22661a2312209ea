"""How a zizou tool call looks to an editor: its ACP kind, title, the places it touches (so the
editor can follow along), and its content (an edit as a diff, a command's output). Pure."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from acp import text_block, tool_content, tool_diff_content
from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    TerminalToolCallContent,
    ToolCallLocation,
    ToolKind,
)

ToolContent = ContentToolCallContent | FileEditToolCallContent | TerminalToolCallContent

KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "open_in_workspace": "read",
    "close_in_workspace": "read",
    "add_context": "read",
    "read_output": "read",
    "job_output": "read",
    "get_instructions": "read",
    "list_dir": "read",
    "edit_file": "edit",
    "write_file": "edit",
    "replace_window": "edit",
    "delete_file": "delete",
    "grep": "search",
    "glob": "search",
    "repo_map": "search",
    "run_bash": "execute",
    "job_kill": "execute",
    "update_state": "think",
}
SHOWN_CHARS = 20_000  # of a call's output, the tail an editor is sent
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def tool_kind(name: str) -> ToolKind:
    """The ACP kind of a tool; `other` for MCP tools, decks and anything unknown."""
    return KINDS.get(name, "other")


def arguments_of(raw: str) -> dict[str, Any]:
    """The call's arguments as the model sent them; empty when they are not a JSON object."""
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def tool_title(name: str, label: str, arguments: dict[str, Any]) -> str:
    """The call in a person's words: the command it runs, the file it reads or edits."""
    if name == "run_bash" and isinstance(arguments.get("command"), str):
        return f"Run `{arguments['command']}`"
    return f"{name}: {label}" if label else name


def locations(root: Path, arguments: dict[str, Any]) -> list[ToolCallLocation]:
    """The file a call names, as an absolute path, with its first line when it names one."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path:
        return []
    line = arguments.get("start_line")
    line = line if isinstance(line, int) and line > 0 else None
    return [ToolCallLocation(path=str(root / path), line=line)]


def shown(text: str) -> str:
    """The tail of a long output, marked as cut."""
    if len(text) <= SHOWN_CHARS:
        return text
    return f"[… {len(text) - SHOWN_CHARS:,} characters left out]\n{text[-SHOWN_CHARS:]}"


def text_content(text: str) -> ToolContent:
    return tool_content(text_block(shown(text)))


def diff_contents(root: Path, diff: str) -> tuple[list[ToolContent], list[ToolCallLocation]]:
    """A unified diff as ACP diffs, one a hunk (its old and new lines, context included), and
    the first line of each hunk in the new file."""
    contents: list[ToolContent] = []
    places: list[ToolCallLocation] = []
    path: str | None = None
    new_file = False
    old: list[str] | None = None
    new: list[str] = []

    def close_hunk() -> None:
        if path is not None and old is not None:
            before = None if new_file else "".join(old)
            contents.append(tool_diff_content(str(root / path), "".join(new), before))

    for line in diff.splitlines(keepends=True):
        if line.startswith("--- "):
            close_hunk()
            old, new_file = None, line.startswith("--- /dev/null")
        elif line.startswith("+++ "):
            path = line[4:].strip().removeprefix("b/")
        elif match := _HUNK.match(line):
            close_hunk()
            old, new = [], []
            places.append(ToolCallLocation(path=str(root / (path or "")), line=int(match[2])))
        elif old is not None and line[:1] in (" ", "-", "+"):
            body = line[1:]
            if line[0] != "+":
                old.append(body)
            if line[0] != "-":
                new.append(body)
    close_hunk()
    return contents, places


__all__ = [
    "KINDS",
    "ToolContent",
    "arguments_of",
    "diff_contents",
    "locations",
    "shown",
    "text_content",
    "tool_kind",
    "tool_title",
]
