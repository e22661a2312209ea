"""The lines that change which messages a stored conversation (wire or record dicts) holds,
replayed as a session is loaded: what loading an `undone` line, and telling a summary from a
shortening, need. Where its turns are is the conversation's to say (`turn_start`)."""

from __future__ import annotations

from typing import Any

from zizou.contracts.conversation import said_by_user, turn_start
from zizou.sessions.records import (
    CheckpointLine,
    CompactedRecord,
    MessageRecord,
    RedoneRecord,
    UndoneRecord,
)


def users_asked(messages: list[dict[str, Any]]) -> tuple[int, Any]:
    """How many messages are the user's (a checks report is zizou's: `said_by_user`), and the
    last one's content."""
    users = [m.get("content") for m in messages if said_by_user(m)]
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
        start = turn_start(messages, record.turn)
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


__all__ = ["replay", "replayed_for_undo", "users_asked"]
