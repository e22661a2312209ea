"""`/export`: the conversation as a Markdown document a person can read or share.

It is redacted as the session file and the debug log are (a key pasted into a message is
`[REDACTED]`), private to the user (0600), and by default kept under `.zizou/exports/`, which
git ignores and the model's listing and search tools do not show.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zizou.paths import PROJECT_DIR_NAME, write_private, write_project_file

EXPORTS_DIR = "exports"


def export_transcript(
    root: Path,
    name: str | None,
    markdown: str,
    redact: Callable[[str], str],
    session_id: str,
) -> Path:
    """Write the redacted `markdown` to `name` (relative to the root, or absolute), else to
    `.zizou/exports/zizou-<session>.md`; where it went. OSError when it cannot be written
    (a directory there, a full disk, a `.zizou` that is a symlink)."""
    data = redact(markdown).encode("utf-8")
    if name is None:
        rel = f"{EXPORTS_DIR}/zizou-{session_id}.md"
        write_project_file(root, rel, data)
        return root / PROJECT_DIR_NAME / rel
    target = Path(name).expanduser()
    target = target if target.is_absolute() else root / target
    if target.is_dir():
        raise IsADirectoryError(21, "it is a directory", str(target))
    write_private(target, data, prefix=f".{target.name}.")
    return target


def transcript_markdown(session_id: str, model: str, messages: list[dict[str, Any]]) -> str:
    """The messages (OpenAI format) as Markdown: what the user said, what the agent said and
    did, and each tool result."""
    parts = [f"# zizou session {session_id}\n\nModel: `{model}`\n"]
    for message in messages:
        role = message.get("role")
        content = str(message.get("content") or "")
        if role == "user":
            parts.append(f"## You\n\n{content}\n")
        elif role == "assistant":
            if content:
                parts.append(f"## zizou\n\n{content}\n")
            for call in message.get("tool_calls") or []:
                function = call.get("function", {})
                parts.append(_call(function.get("name", "?"), function.get("arguments", "")))
        elif role == "tool":
            parts.append(_fenced("Result", content))
    return "\n".join(parts)


def _call(name: str, arguments: str) -> str:
    try:
        shown = json.dumps(json.loads(arguments or "{}"), indent=2, ensure_ascii=False)
    except ValueError:
        shown = arguments
    return _fenced(f"Tool call: `{name}`", shown, "json")


def _fenced(title: str, body: str, lang: str = "") -> str:
    fence = "```"
    while fence in body:
        fence += "`"
    return f"**{title}**\n\n{fence}{lang}\n{body}\n{fence}\n"


__all__ = ["EXPORTS_DIR", "export_transcript", "transcript_markdown"]
