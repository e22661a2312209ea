"""Where the turns are in a stored conversation (wire or record dicts): what loading an `undone`
line, and telling a summary from a shortening, need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def turn_start(roles: Sequence[str], turn: int) -> int | None:
    """Where turn `turn` starts in a conversation of messages with these `roles`: at its user
    message (the `turn`-th, from 0), or at the user messages just before it (the `!commands`
    shared with it); None when the conversation has no such turn."""
    seen = -1
    for index, role in enumerate(roles):
        if role != "user":
            continue
        seen += 1
        if seen == turn:
            while index > 0 and roles[index - 1] == "user":
                index -= 1
            return index
    return None


def users_asked(messages: list[dict[str, Any]]) -> tuple[int, Any]:
    """How many user messages there are, and the last one's content."""
    users = [m.get("content") for m in messages if m.get("role") == "user"]
    return len(users), users[-1] if users else None


__all__ = ["turn_start", "users_asked"]
