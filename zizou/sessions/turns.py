"""Where the turns are in a stored conversation (wire or record dicts), and the lines that
change which messages it holds, replayed as a session is loaded: what loading an `undone` line,
and telling a summary from a shortening, need."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zizou.sessions.records import (
    CheckpointLine,
    CompactedRecord,
    MessageRecord,
    RedoneRecord,
    UndoneRecord,
)


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


def _role(message: dict[str, Any]) -> str:
    """A message's role for counting turns: a checks report is zizou's, not the user's (it
    belongs to the turn it reports on, as `UserMessage.from_user` says)."""
    return "checks" if message.get("checks") else str(message.get("role"))


def users_asked(messages: list[dict[str, Any]]) -> tuple[int, Any]:
    """How many user messages there are, and the last one's content."""
    users = [m.get("content") for m in messages if _role(m) == "user"]
    return len(users), users[-1] if users else None


def replay(
    messages: list[dict[str, Any]],
    record: MessageRecord | CompactedRecord | UndoneRecord | RedoneRecord,
) -> None:
    """Apply one line to the conversation being loaded: a message joins it; a `compacted` line
    replaces it with the shortened copy; an `undone` line cuts it before the turn it names, and
    a `redone` line puts that turn's messages back."""
    if isinstance(record, CompactedRecord):
        messages[:] = record.messages
    elif isinstance(record, UndoneRecord):
        start = turn_start([_role(m) for m in messages], record.turn)
        if start is not None:
            del messages[start:]
    elif isinstance(record, RedoneRecord):
        messages.extend(record.messages)
    else:
        messages.append(record.message)


def replayed_for_undo(
    messages: list[dict[str, Any]],
    record: MessageRecord | CompactedRecord | UndoneRecord | RedoneRecord,
) -> CheckpointLine | None:
    """Replay the line; the line again when undo replays it too: its own lines, and a compaction
    that put a summary in place of the turns (one that shortens to fit keeps every user message,
    and the last one whole)."""
    asked = users_asked(messages) if isinstance(record, CompactedRecord) else None
    replay(messages, record)
    if isinstance(record, UndoneRecord | RedoneRecord):
        return record
    if isinstance(record, CompactedRecord) and asked != users_asked(messages):
        return record
    return None


__all__ = ["replay", "replayed_for_undo", "turn_start", "users_asked"]
