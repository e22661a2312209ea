"""The chat history in the provider-neutral (OpenAI) message format.

It keeps one invariant the providers insist on: every tool call an assistant message makes is
answered by exactly one tool message before the next user or assistant message.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from zizou.core.protocols import ToolCall

Listener = Callable[[dict[str, Any]], None]


class Conversation:
    """Messages in order. `on_append` sees every message as it is added (the session store
    writes it to disk before anything is sent)."""

    def __init__(
        self, messages: list[dict[str, Any]] | None = None, on_append: Listener | None = None
    ) -> None:
        self.messages: list[dict[str, Any]] = list(messages or [])
        self.on_append = on_append

    def _append(self, message: dict[str, Any]) -> None:
        if self.on_append is not None:
            self.on_append(message)
        self.messages.append(message)

    def add_user(self, text: str) -> bool:
        """Add the user's message; False when it is a retry of the same unanswered message,
        which is then kept once rather than duplicated."""
        self.close_pending("not run: the turn was interrupted")
        last = self.messages[-1] if self.messages else None
        if last is not None and last["role"] == "user" and last["content"] == text:
            return False
        self._append({"role": "user", "content": text})
        return True

    def add_assistant(self, text: str, tool_calls: tuple[ToolCall, ...] = ()) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if tool_calls:
            message["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": _valid_json(call.arguments)},
                }
                for call in tool_calls
            ]
        self._append(message)

    def add_tool_result(self, call_id: str, content: str) -> None:
        if call_id not in self.pending_call_ids():
            raise ValueError(f"no pending tool call with id {call_id!r}")
        self._append({"role": "tool", "tool_call_id": call_id, "content": content})

    def pending_call_ids(self) -> list[str]:
        """Ids of the last assistant message's tool calls that have no result yet."""
        answered: set[str] = set()
        for message in reversed(self.messages):
            if message["role"] == "tool":
                answered.add(message["tool_call_id"])
            elif message["role"] == "assistant":
                calls = message.get("tool_calls") or []
                return [c["id"] for c in calls if c["id"] not in answered]
            else:
                return []
        return []

    def close_pending(self, reason: str) -> None:
        """Answer every unanswered tool call, so the history stays valid after a stop."""
        for call_id in self.pending_call_ids():
            self._append({"role": "tool", "tool_call_id": call_id, "content": reason})

    def __len__(self) -> int:
        return len(self.messages)


def _valid_json(arguments: str) -> str:
    """Providers reject a history holding malformed arguments; keep such calls as `{}`.

    The model still learns what went wrong: the tool result quotes its malformed text.
    """
    try:
        json.loads(arguments or "{}")
    except ValueError:
        return "{}"
    return arguments or "{}"
