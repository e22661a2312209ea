"""A scripted Model with no network, so tests of the loop, headless mode and the TUI are fast
and deterministic.

Replies are plain dicts in the same shape the loopback test server plays:
`{"text": "hi"}`, `{"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]}`,
`{"status": 429, "retry_after": 1}` (raised as a ProviderError), `{"text": "..", "stall_s": 5}`.
`{"reasoning": "..", "text": ".."}` streams the reasoning (as ReasoningDeltas) before the text.
`{"text": "..", "until": event}` stalls where `stall_s` would until the asyncio.Event is set, so a
test holds a turn open exactly as long as it needs to and no longer.
A ProviderError instance in the script is raised as it is.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Iterable
from typing import Any

from zizou.contracts.events import ReasoningDelta, Usage
from zizou.contracts.protocols import (
    Model,
    ModelEvent,
    ModelReply,
    ModelRequest,
    TextPiece,
    ToolCall,
)
from zizou.errors import ProviderError

REPLY_KEYS = frozenset(
    {
        "text",
        "reasoning",
        "tool_calls",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "cost_usd",
        "status",
        "error",
        "error_type",
        "retry_after",
        "retryable",
        "delay_s",
        "stall_s",
        "stall_after",
        "until",
        "chunk_delay_s",
        "truncate",
        "pieces",
    }
)

Scripted = dict[str, Any] | ProviderError


def _check(reply: Scripted) -> Scripted:
    if isinstance(reply, dict):
        unknown = set(reply) - REPLY_KEYS
        if unknown:
            raise ValueError(f"unknown reply keys {sorted(unknown)}; known: {sorted(REPLY_KEYS)}")
    return reply


def split_text(text: str, pieces: int) -> list[str]:
    """`text` in at most `pieces` chunks of equal size (the last may be shorter)."""
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]


def _error(reply: dict[str, Any]) -> ProviderError:
    status = reply.get("status")
    retryable = reply.get("retryable")
    if retryable is None:
        retryable = status is not None and (status in (408, 409, 429) or status >= 500)
    message = reply.get("error") or f"scripted error {status}"
    return ProviderError(
        message, retryable=retryable, status=status, retry_after=reply.get("retry_after")
    )


class ScriptedModel(Model):
    """Plays its replies in order, one per `stream` call, and records every request."""

    def __init__(self, replies: Iterable[Scripted] = (), id: str = "scripted") -> None:
        self.id = id
        self.requests: list[ModelRequest] = []
        self._replies: deque[Scripted] = deque(_check(r) for r in replies)
        self._call_ids = 0

    def add(self, *replies: Scripted) -> None:
        self._replies.extend(_check(r) for r in replies)

    @property
    def remaining(self) -> int:
        return len(self._replies)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if not self._replies:
            raise ProviderError("script exhausted")
        reply = self._replies.popleft()
        if isinstance(reply, ProviderError):
            raise reply
        if reply.get("delay_s"):
            await asyncio.sleep(reply["delay_s"])
        if "status" in reply or "error" in reply:
            raise _error(reply)
        for piece in split_text(reply.get("reasoning", ""), reply.get("pieces", 3)):
            yield ReasoningDelta(piece)
        text = reply.get("text", "")
        pieces = split_text(text, reply.get("pieces", 3))
        for number in range(len(pieces) + 1):  # the pause before the end counts too
            pause = reply.get("chunk_delay_s", 0.0) if number else 0.0
            pause += reply.get("stall_s", 0.0) if number == reply.get("stall_after", 1) else 0.0
            if pause:
                await asyncio.sleep(pause)
            if "until" in reply and number == reply.get("stall_after", 1):
                await reply["until"].wait()
            if number < len(pieces):
                yield TextPiece(pieces[number])
        if reply.get("truncate"):
            raise ProviderError(
                f"the stream from {self.id} ended before it finished; try again", retryable=True
            )
        yield self._reply(request, reply, text)

    def _reply(self, request: ModelRequest, reply: dict[str, Any], text: str) -> ModelReply:
        calls = tuple(self._tool_call(c) for c in reply.get("tool_calls", ()))
        prompt = len(request.system) + len(json.dumps([request.messages, request.tools]))
        completion = len(text) + sum(len(c.name) + len(c.arguments) for c in calls)
        usage = Usage(
            input_tokens=reply.get("prompt_tokens", max(1, prompt // 4)),
            output_tokens=reply.get("completion_tokens", max(1, completion // 4)),
            cost_usd=reply.get("cost_usd"),
        )
        finish = reply.get("finish_reason") or ("tool_calls" if calls else "stop")
        return ModelReply(text=text, tool_calls=calls, usage=usage, finish_reason=finish)

    def _tool_call(self, call: dict[str, Any]) -> ToolCall:
        self._call_ids += 1
        arguments = call.get("arguments", "{}")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments)
        return ToolCall(
            id=call.get("id") or f"call_{self._call_ids}", name=call["name"], arguments=arguments
        )


__all__ = ["REPLY_KEYS", "ScriptedModel", "split_text"]
