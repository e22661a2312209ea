"""`/export`: the conversation as a Markdown document a person can read or share."""

from __future__ import annotations

import json
from typing import Any


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


__all__ = ["transcript_markdown"]
