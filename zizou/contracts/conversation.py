"""The chat history: typed message records (core/messages.py), sent in the wire format.

It keeps one invariant the providers insist on: every tool call an assistant message makes is
answered by exactly one tool message before the next user or assistant message.

It also says, once for every reader, where the turns are (`turn_starts`): the history window,
compaction, loading a session, undo and the resumed view all cut and count turns by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from zizou.contracts.messages import (
    AssistantMessage,
    ImagePart,
    Message,
    ShellRun,
    ToolCallPart,
    ToolMessage,
    UserMessage,
    from_wire,
    to_wire,
)
from zizou.contracts.protocols import ToolCall

Listener = Callable[[Message], None]
# A message as a record, or as a dict: a session file's record (with the typed fields) or the
# wire format (without them: there every user message is the user's).
AnyMessage = Message | Mapping[str, Any]


class Conversation:
    """Messages in order. `on_append` sees every message as it is added (the session store
    writes it to disk before anything is sent)."""

    def __init__(
        self,
        records: Iterable[Message | dict[str, Any]] | None = None,
        on_append: Listener | None = None,
    ) -> None:
        self.records: list[Message] = [
            from_wire(r) if isinstance(r, dict) else r for r in records or ()
        ]
        self.on_append = on_append

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The history in the wire format (a new list: change it through the methods)."""
        return [to_wire(record) for record in self.records]

    def _append(self, message: Message) -> None:
        self.records.append(message)  # kept in memory even when the session file fails
        if self.on_append is not None:
            self.on_append(message)

    def add_user(
        self, text: str, shell: ShellRun | None = None, images: tuple[ImagePart, ...] = ()
    ) -> bool:
        """Add the user's message (`shell`: the `!command` it shares; `images`: those attached);
        False when it is a retry of the same unanswered message, kept once, not duplicated."""
        self.close_pending("not run: the turn was interrupted")
        last = self.records[-1] if self.records else None
        if isinstance(last, UserMessage) and last.content == text and last.images == images:
            return False
        self._append(UserMessage(content=text, shell=shell, images=images))
        return True

    def add_checks_report(self, text: str) -> None:
        """What the checks found once the model ended its turn; the turn goes on from it."""
        self._append(UserMessage(content=text, checks=True))

    def add_assistant(self, text: str, tool_calls: tuple[ToolCall, ...] = ()) -> None:
        parts = tuple(
            ToolCallPart(id=call.id, name=call.name, arguments=_valid_json(call.arguments))
            for call in tool_calls
        )
        self._append(AssistantMessage(content=text or None, tool_calls=parts))

    def add_tool_result(self, result: ToolMessage) -> None:
        if result.tool_call_id not in self.pending_call_ids():
            raise ValueError(f"no pending tool call with id {result.tool_call_id!r}")
        self._append(result)

    def latest_user_text(self) -> str:
        """What the user said last ("" before anything was said)."""
        for record in reversed(self.records):
            if isinstance(record, UserMessage) and record.from_user:
                return record.content
        return ""

    def call_ids(self) -> set[str]:
        """Every tool call id in the history."""
        return {c.id for r in self.records if isinstance(r, AssistantMessage) for c in r.tool_calls}

    def pending_call_ids(self) -> list[str]:
        """Ids of the last assistant message's tool calls that have no result yet."""
        answered: set[str] = set()
        for record in reversed(self.records):
            if isinstance(record, ToolMessage):
                answered.add(record.tool_call_id)
            elif isinstance(record, AssistantMessage):
                return [c.id for c in record.tool_calls if c.id not in answered]
            else:
                return []
        return []

    def close_pending(self, reason: str) -> None:
        """Answer every unanswered tool call, so the history stays valid after a stop."""
        for call_id in self.pending_call_ids():
            self._append(ToolMessage(tool_call_id=call_id, content=reason, ok=False))

    def replace(self, messages: Iterable[dict[str, Any]]) -> None:
        """The history is now `messages`: a shortened copy of it in the wire format
        (core/compaction.py keeps every user message, in order), or stored records (undo).
        What the wire format leaves out comes back from the records the copy keeps: a tool
        result's outcome and diff (by its call id), and a user message's `!command` or checks
        report (by its place among the user messages, never by its text)."""
        messages = list(messages)
        known = {r.tool_call_id: r for r in self.records if isinstance(r, ToolMessage)}
        users = [r for r in self.records if isinstance(r, UserMessage)]
        kept = sum(1 for m in messages if m.get("role") == "user") == len(users)
        originals = iter(users if kept else ())
        records: list[Message] = []
        for wire in messages:
            record = from_wire(wire)
            if isinstance(record, ToolMessage) and record.tool_call_id in known:
                record = known[record.tool_call_id].model_copy(update={"content": record.content})
            elif isinstance(record, UserMessage):
                original = next(originals, None)
                if original is not None and record.shell is None and record.checks is None:
                    record = original.model_copy(update={"content": record.content})
            records.append(record)
        self.records = records

    def summarised(self, messages: Iterable[dict[str, Any]]) -> None:
        """The history is now `messages`, new ones that stand for it (a summary of it): none
        of them is an earlier record."""
        self.records = [from_wire(message) for message in messages]

    def clear(self) -> None:
        self.records = []

    def __len__(self) -> int:
        return len(self.records)


def said_by_user(message: AnyMessage) -> bool:
    """Whether `message` is the user's: a user message that is not zizou's checks report
    (`checks`). A `!command` the user ran and shared (`shell`) is theirs, and so is a
    compaction's summary, which stands for what they said before it."""
    if isinstance(message, UserMessage):
        return message.from_user
    if isinstance(message, AssistantMessage | ToolMessage):
        return False
    return message.get("role") == "user" and not message.get("checks")


def turn_starts(messages: Sequence[AnyMessage]) -> list[int]:
    """Where each turn starts: at the first of the user's messages that open it. A turn is
    what the user said and everything after it up to the next turn: the model's replies, its
    tool calls with their results, and zizou's checks report, which the turn goes on from.
    The user's messages that follow one another open one turn: a shared `!command` goes with
    the message it comes before, and a message that got no reply with the one after it."""
    return [
        index
        for index, message in enumerate(messages)
        if said_by_user(message) and (index == 0 or not said_by_user(messages[index - 1]))
    ]


def user_messages(messages: Iterable[AnyMessage]) -> int:
    """How many of `messages` are the user's. A turn is named by the index of its last user
    message among them (the name checkpoints and `undone` lines give it), so this is also the
    name of the next turn."""
    return sum(1 for message in messages if said_by_user(message))


def turn_start(messages: Sequence[AnyMessage], turn: int) -> int | None:
    """Where the turn named `turn` starts (the turn that holds the user's message number
    `turn`, from 0); None when there is no such turn."""
    said = [index for index, message in enumerate(messages) if said_by_user(message)]
    if not 0 <= turn < len(said):
        return None
    return max(start for start in turn_starts(messages) if start <= said[turn])


def _valid_json(arguments: str) -> str:
    """Providers reject a history holding malformed arguments; keep such calls as `{}`.

    The model still learns what went wrong: the tool result quotes its malformed text.
    """
    try:
        json.loads(arguments or "{}")
    except ValueError:
        return "{}"
    return arguments or "{}"


def windowed(
    messages: list[dict[str, Any]], window: int | None, starts: Sequence[int] | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The history a request sends under a history window of `window` earlier turns, and how
    many earlier turns it leaves out. Turns start at `starts` (`turn_starts` of the messages'
    records: the wire format cannot tell a checks report from the user's words); each is sent
    whole, so every tool call keeps its result, and the last turn always is."""
    if window is None:
        return messages, 0
    if starts is None:
        starts = turn_starts(messages)
    earlier = len(starts) - 1  # the last start opens the turn running now
    if earlier <= window:
        return messages, 0
    cut = starts[len(starts) - 1 - window]
    return messages[cut:], earlier - window
