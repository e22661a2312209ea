"""Shorten a conversation that no longer fits the model's context window, so it can be sent
once more instead of failing outright.

`compact` is pure: it returns a new message list and leaves the one it was given alone. The
retry layer (providers/retry.py) applies it to the request it sends, once, after an overflow.
The shortened copy then becomes the conversation (core/loop.py), and the session file records it
as a `compacted` line (sessions/store.py), so later steps and `zizou -c` do not overflow again.

What goes, in this order, until the estimate fits the budget (everything below, without one):
1. tool outputs from earlier turns, oldest first, replaced by a short placeholder;
2. earlier turns, oldest first: each becomes the user's messages that open it (shortened when
   long) and one placeholder reply, so its tool calls and their results go together;
3. tool outputs from earlier steps of the current turn, oldest first.
Turns are where `turn_starts` (core/conversation.py) says. The turn running now keeps its
messages, and the latest step its tool results; no user message is dropped, and the history
stays valid: every tool call left in it keeps its result.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from zizou.contracts.conversation import said_by_user, turn_starts

TOOL_PLACEHOLDER = "[tool output dropped to fit the context window; run the tool again if needed]"
TURN_PLACEHOLDER = "[this earlier exchange was dropped to fit the context window]"
USER_KEEP_CHARS = 600  # an earlier user message longer than this keeps only its start
CHARS_PER_TOKEN = 4

Message = dict[str, Any]


def estimate_tokens(value: Any) -> int:
    """A rough token count: characters of the JSON text over four. Providers count differently;
    this is for budgets and messages, not billing."""
    return len(json.dumps(value, ensure_ascii=False, default=str)) // CHARS_PER_TOKEN


class _Draft:
    """The messages being shortened, with a running token estimate. Removed slots are None."""

    def __init__(self, messages: list[Message]) -> None:
        self.slots: list[Message | None] = [dict(m) for m in messages]
        self.sizes = [estimate_tokens(m) for m in messages]
        self.total = sum(self.sizes)
        self.changed = False

    def put(self, index: int, message: Message | None) -> None:
        size = 0 if message is None else estimate_tokens(message)
        self.total += size - self.sizes[index]
        self.slots[index], self.sizes[index] = message, size
        self.changed = True

    def drop_output(self, index: int) -> None:
        message = self.slots[index]
        if message is not None and len(str(message.get("content"))) > len(TOOL_PLACEHOLDER):
            self.put(index, {**message, "content": TOOL_PLACEHOLDER})

    def collapse_turn(self, start: int, end: int) -> None:
        """The turn `[start:end]` becomes the user's messages that open it, each shortened
        when long, and one placeholder reply. No user message goes (Conversation.replace
        finds the records it keeps by their place among them)."""
        opening = start
        while opening < end and said_by_user(self.slots[opening] or {}):
            self._shorten(opening)
            opening += 1
        if opening < end:
            self.put(opening, {"role": "assistant", "content": TURN_PLACEHOLDER})
        for index in range(opening + 1, end):
            message = self.slots[index]
            if message is not None and message.get("role") != "user":
                self.put(index, None)

    def _shorten(self, index: int) -> None:
        user = self.slots[index] or {}
        content = user.get("content")
        if not isinstance(content, str):
            self.put(index, {**user, "content": TURN_PLACEHOLDER})
        elif len(content) > USER_KEEP_CHARS:
            short = content[: USER_KEEP_CHARS // 2].rstrip()
            self.put(index, {**user, "content": f"{short} [the rest was dropped]"})

    def result(self) -> list[Message]:
        return [m for m in self.slots if m is not None]


def _last_index(messages: list[Message], role: str) -> int:
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == role:
            return index
    return -1


def compact(messages: list[Message], budget_tokens: int | None = None) -> list[Message] | None:
    """`messages` shortened until their estimate is at most `budget_tokens` (or as far as it
    goes without a budget); None when nothing could be dropped."""
    starts = turn_starts(messages)
    if not starts:
        return None
    current = starts[-1]  # the turn running now
    last_assistant = max(_last_index(messages, "assistant"), current)
    draft = _Draft(messages)

    def fits() -> bool:
        return budget_tokens is not None and draft.total <= budget_tokens

    older_outputs = [i for i in range(current) if messages[i]["role"] == "tool"]
    current_outputs = [i for i in range(current, last_assistant) if messages[i]["role"] == "tool"]
    for index in older_outputs:
        if fits():
            break
        draft.drop_output(index)
    for start, end in itertools.pairwise(starts):
        if fits():
            break
        draft.collapse_turn(start, end)
    for index in current_outputs:
        if fits():
            break
        draft.drop_output(index)
    return draft.result() if draft.changed else None


__all__ = ["TOOL_PLACEHOLDER", "TURN_PLACEHOLDER", "compact", "estimate_tokens"]
