"""A JSON reply protocol for models without native tool calling (small local models, most often).

`JsonProtocolModel` wraps any Model. The provider gets no `tools`: the system prompt gains a
section that explains the protocol and lists the tools, the history is rewritten as plain turns
(providers/json_envelope.py), and the model answers with one JSON object. Its `toolCalls` become
the reply's ToolCalls (ids `json_1`, `json_2`, ...), `diff` a call to `update_state` and
`requestInstruction` a call to `get_instructions` when the request offers those tools, and
`messageToUser` the reply's text, yielded once the object is read (the raw stream is JSON, which
no user should watch). A reply that is not such an object gets one corrective re-ask within the
same call; a second failure gives up: its raw text is the reply, with no tool calls.

Which protocol a run speaks: `protocol = "auto" | "tools" | "json"` (`--protocol`). "auto" uses
JSON only for a model litellm knows and says cannot call functions; an unknown model keeps
native tool calls.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
from collections.abc import AsyncIterator, Callable
from functools import cached_property
from typing import Any

from zizou.contracts.events import ReasoningDelta, Retrying, Usage
from zizou.contracts.protocols import (
    Model,
    ModelEvent,
    ModelReply,
    ModelRequest,
    TextPiece,
    ToolCall,
)
from zizou.errors import ProviderError
from zizou.providers.catalog import model_info
from zizou.providers.json_envelope import (
    INSTRUCTIONS_TOOL,
    STATE_TOOL,
    Envelope,
    EnvelopeError,
    plain_history,
    protocol_section,
    read_envelope,
    tool_names,
)

PROTOCOLS = ("auto", "tools", "json")
log = logging.getLogger(__name__)


class JsonProtocolModel(Model):
    """`inner` spoken to through the JSON reply protocol. `applies`, when given, decides on the
    first request whether the protocol is used at all (else every request passes through)."""

    def __init__(self, inner: Model, applies: Callable[[], bool] | None = None) -> None:
        self.inner = inner
        self.id = inner.id
        self._applies = applies
        self._ids = itertools.count(1)

    def __repr__(self) -> str:
        return f"JsonProtocolModel({self.inner!r})"

    @cached_property
    def active(self) -> bool:
        """Whether requests go out in the JSON protocol (decided once)."""
        return True if self._applies is None else self._applies()

    @property
    def context_window(self) -> int | None:
        window = getattr(self.inner, "context_window", None)
        return window if isinstance(window, int) else None

    def call_parameters(self) -> dict[str, Any]:
        """The inner model's call parameters, and which protocol it speaks (for the debug log)."""
        return {**self.inner.call_parameters(), "protocol": "json" if self.active else "tools"}

    def secrets(self) -> tuple[str, ...]:
        return self.inner.secrets()

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if not self.active:
            async for event in self.inner.stream(request):
                yield event
            return
        plain = dataclasses.replace(
            request,
            system=f"{request.system.rstrip()}\n\n{protocol_section(request.tools)}\n",
            messages=plain_history(request.messages),
            tools=[],
        )
        raw: list[ModelReply] = []
        async for notice in self._attempt(plain, raw):
            yield notice
        reply = self._read(raw[0], request, raw[0].usage)
        if isinstance(reply, EnvelopeError):
            log.warning(
                "the model's reply is not the JSON object asked for (%s); asking again", reply
            )
            again = dataclasses.replace(plain, messages=[*plain.messages, *_reask(raw[0], reply)])
            async for notice in self._attempt(again, raw):
                yield notice
            usage = raw[0].usage + raw[1].usage
            reply = self._read(raw[1], request, usage)
            if isinstance(reply, EnvelopeError):
                log.warning(
                    "the model's second reply is not the JSON object either (%s); its text is "
                    "taken as the answer, with no tool calls",
                    reply,
                )
                reply = dataclasses.replace(raw[1], usage=usage)
        if reply.text:
            yield TextPiece(reply.text)
        yield reply

    async def _attempt(
        self, request: ModelRequest, into: list[ModelReply]
    ) -> AsyncIterator[Retrying | ReasoningDelta]:
        """One call to the inner model: yields its retry notices and its reasoning, never its
        raw text (the envelope), and adds its reply to `into`."""
        events = self.inner.stream(request)
        try:
            async for event in events:
                if isinstance(event, Retrying):
                    # A shortened history would be the rewritten one, which must not replace
                    # the conversation (inside the retry layer, as make_model puts it, the
                    # shortening happens before the rewriting instead).
                    yield dataclasses.replace(event, resent_messages=None)
                elif isinstance(event, ReasoningDelta):
                    yield event
                elif isinstance(event, ModelReply):
                    into.append(event)
                    return
        finally:
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        raise ProviderError("the model's stream ended without a reply")

    def _read(
        self, raw: ModelReply, request: ModelRequest, usage: Usage
    ) -> ModelReply | EnvelopeError:
        """The reply the raw one stands for, or what is wrong with it. Tool calls the provider
        sent natively anyway are kept as they are."""
        if raw.tool_calls:
            return dataclasses.replace(raw, usage=usage)
        try:
            envelope = read_envelope(raw.text)
        except EnvelopeError as exc:
            return exc
        calls = self._calls(envelope, tool_names(request.tools))
        finish = "tool_calls" if calls else raw.finish_reason
        return ModelReply(envelope.message_to_user or "", calls, usage, finish)

    def _calls(self, envelope: Envelope, offered: list[str]) -> tuple[ToolCall, ...]:
        wanted = [(c.name, c.arguments) for c in envelope.tool_calls]
        if envelope.diff is not None:
            how = "patch" if isinstance(envelope.diff, list) else "merge"
            wanted.append((STATE_TOOL, {how: envelope.diff}))
        if envelope.request_instruction is not None:
            wanted.append((INSTRUCTIONS_TOOL, {"name": envelope.request_instruction}))
        calls = []
        for name, arguments in wanted:
            if name in (STATE_TOOL, INSTRUCTIONS_TOOL) and name not in offered:
                log.warning("dropped the reply's %s: no %s tool is offered", name, name)
                continue
            text = json.dumps(arguments, ensure_ascii=False)
            calls.append(ToolCall(f"json_{next(self._ids)}", name, text))
        return tuple(calls)


def _reask(bad: ModelReply, problem: EnvelopeError) -> list[dict[str, Any]]:
    """The bad reply and the correction, appended for the one re-ask."""
    return [
        {"role": "assistant", "content": bad.text},
        {
            "role": "user",
            "content": f"Your reply could not be read: {problem}. Answer again with only the "
            "JSON object described in REPLY FORMAT, and no other text.",
        },
    ]


def uses_json_protocol(model_id: str, protocol: str) -> bool:
    """Whether `model_id` is spoken to in the JSON protocol: always for "json", never for
    "tools"; for "auto", only when litellm knows the model and says it cannot call functions.
    litellm is imported only when its local model map lists the model without saying it can."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"unknown protocol {protocol!r}; use one of {', '.join(PROTOCOLS)}")
    if protocol != "auto":
        return protocol == "json"
    info = model_info(model_id)
    if info is None or info.tool_calling is True:
        return False  # unknown models keep native tool calls
    from zizou.providers.litellm_model import _litellm

    try:
        return not _litellm().supports_function_calling(model_id)
    except Exception as exc:  # litellm could not tell: native tool calls, as for unknown models
        log.warning("could not tell whether %s calls functions (%s)", model_id, exc)
        return False


def with_protocol(model: Model, model_id: str, protocol: str) -> Model:
    """`model` speaking `protocol`: itself for native tool calls, else wrapped. For "auto" the
    question goes to litellm (slow to import) only on the first request, and only for a model
    its local map lists without saying it can call functions."""
    if protocol == "auto":
        info = model_info(model_id)
        if info is None or info.tool_calling is True:
            return model
        return JsonProtocolModel(model, lambda: uses_json_protocol(model_id, "auto"))
    return JsonProtocolModel(model) if uses_json_protocol(model_id, protocol) else model


__all__ = ["PROTOCOLS", "JsonProtocolModel", "uses_json_protocol", "with_protocol"]
