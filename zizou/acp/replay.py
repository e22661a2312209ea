"""A loaded session's conversation, replayed as the updates its turns sent (`session/load`):
the user's messages (their images too), the answers, and each tool call with its result,
diffs included."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from acp import image_block, update_user_message, update_user_message_text

from zizou.acp.updates import TurnUpdates, Update
from zizou.contracts.events import TextDelta, ToolCallFinished, ToolCallStarted
from zizou.contracts.messages import AssistantMessage, Message, ToolMessage, UserMessage


def replayed(root: Path, records: Iterable[Message]) -> Iterator[Update]:
    """The updates that tell `records` again, in order."""
    updates = TurnUpdates(root)
    names: dict[str, str] = {}
    for record in records:
        match record:
            case UserMessage():
                yield update_user_message_text(record.content)
                for image in record.images:
                    yield update_user_message(image_block(image.data, image.mime))
            case AssistantMessage():
                if record.content:
                    yield from updates.of(TextDelta(record.content))
                for call in record.tool_calls:
                    names[call.id] = call.name
                    yield from updates.of(ToolCallStarted(call.id, call.name, call.arguments))
            case ToolMessage():
                name = record.name or names.get(record.tool_call_id, "")
                done = ToolCallFinished(
                    record.tool_call_id, name, record.ok, record.content, 0.0, record.diff
                )
                yield from updates.of(done)


__all__ = ["replayed"]
