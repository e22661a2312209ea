"""A deck run's conversation, read-only: what the deck was told, what its model answered and
called, and what each call returned (cut to a few lines), the runs under it after it. A snapshot
of the conversations as they are when it opens."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from zizou.contracts.messages import AssistantMessage, Message, ToolMessage, UserMessage
from zizou.decks.display import INTO
from zizou.plural import counted
from zizou.ui.screens.text_viewer import TextViewerScreen
from zizou.ui.text import pretty_arguments

if TYPE_CHECKING:
    from zizou.decks.run import RunRecord

RESULT_LINES = 6  # a tool result's first lines
TEXT_LINES = 40  # a message's first lines
NOT_KEPT = "No transcript of this run is kept (the app keeps the latest deck runs)."


def cut(text: str, lines: int) -> str:
    kept = text.splitlines()
    if len(kept) <= lines:
        return text.rstrip()
    return "\n".join([*kept[:lines], f"… {counted(len(kept) - lines, 'more line')}"])


def message_text(message: Message) -> str:
    match message:
        case UserMessage(content=content):
            return f"user:\n{cut(content, TEXT_LINES)}"
        case AssistantMessage(content=content, tool_calls=calls):
            parts = [f"assistant:\n{cut(content, TEXT_LINES)}" if content else "assistant:"]
            for call in calls:
                arguments = cut(pretty_arguments(call.arguments), TEXT_LINES)
                parts.append(f"  → {call.name} {arguments}".replace("\n", "\n    "))
            return "\n".join(parts)
        case ToolMessage(content=content, ok=ok, name=name):
            mark = "✓" if ok else "✗"
            return f"{name or 'tool'} {mark}:\n{cut(content, RESULT_LINES)}"


def run_text(record: RunRecord) -> str:
    """One run's conversation, under a heading naming its chain and how it ended."""
    outcome = record.outcome
    if outcome is None:
        ending = "running"
    elif outcome.ok:
        ending = "returned"
    else:
        ending = f"failed: {outcome.code}: {outcome.message}"
    heading = f"── {INTO.join(record.chain)} · {record.action_call_id} · {ending} ──"
    body = [message_text(message) for message in list(record.conversation.records)]
    return "\n\n".join([heading, *body])


def transcript_text(records: Sequence[RunRecord]) -> str:
    return "\n\n\n".join(run_text(record) for record in records) if records else NOT_KEPT


class DeckTranscriptScreen(TextViewerScreen):
    def __init__(self, deck: str, records: Sequence[RunRecord]) -> None:
        super().__init__(f"Transcript of {deck}", transcript_text(records))


__all__ = ["DeckTranscriptScreen", "message_text", "transcript_text"]
