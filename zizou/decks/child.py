"""The parts of a deck's child run: its system prompt, its model (counted for the turn and
traced), the recorder that passes its events up, and its turn 0.

The child's prompt is DECK (the deck's body and cards') and DECK CONTEXT (which deck it is,
where in the chain, how it ends), plus TASK STATE when the deck declares one. Its turn 0 is an
assistant call to `zizou_reference_context` and that call's result: the run's ids, the
validated input and the action, so the model reads where it stands before the input itself.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from zizou.agent.prompt import CompiledPrompt, Section
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import (
    AnyEvent,
    Nested,
    ReasoningDelta,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    Usage,
)
from zizou.contracts.messages import ToolMessage
from zizou.contracts.protocols import (
    Model,
    ModelEvent,
    ModelReply,
    ModelRequest,
    PolicyVerdict,
    ToolCall,
    ToolPolicy,
)
from zizou.contracts.schema_ts import TaskSchema
from zizou.contracts.state import SessionState
from zizou.contracts.task_state import TaskState
from zizou.decks.spec import Deck
from zizou.decks.tools import ActionInfo, Caller, RunBox
from zizou.decks.trace import Trace

REFERENCE_TOOL = "zizou_reference_context"
REFERENCE_MAX_CHARS = 8 * 1024


@dataclass
class DeckCalls:
    """The deck model calls one turn of the main agent made, all runs together, and what they
    cost. Their cap is the run's (core/spending.py: the main agent's and its decks' calls)."""

    used: int = 0
    usage: Usage = field(default_factory=Usage)

    def take(self) -> None:
        self.used += 1


def task_state_for(deck: Deck) -> TaskState | None:
    """A fresh task state for a deck that declares one (`state:`, `state.schema.json`)."""
    if deck.state_schema is None:
        return None
    return TaskState(TaskSchema(deck.state_schema, str(deck.path)))


def turn_zero(conversation: Conversation, reference: dict[str, Any]) -> None:
    """The child's turn 0: a call to `zizou_reference_context` and its result."""
    content = json.dumps(reference, ensure_ascii=False)
    if (
        len(content.encode("utf-8")) > REFERENCE_MAX_CHARS
    ):  # the input itself follows, whole, as the message
        reference = {**reference, "input": "(too long for the reference: see the message)"}
        content = json.dumps(reference, ensure_ascii=False)
    call = ToolCall("zizou_ref_0", REFERENCE_TOOL, "{}")
    conversation.add_assistant("", (call,))
    conversation.add_tool_result(
        ToolMessage(tool_call_id=call.id, content=content, ok=True, name=REFERENCE_TOOL)
    )


async def last_event(events: AsyncIterator[AnyEvent]) -> TurnFinished:
    """Run a turn to its end (its events go to the recorders), and how it ended."""
    finished: TurnFinished | None = None
    async with aclosing(events) as running:  # type: ignore[type-var]
        async for event in running:
            if isinstance(event, TurnFinished):
                finished = event
    assert finished is not None
    return finished


class DeckPrompt:
    """A child's system prompt: the deck's body, then what it is and how it ends."""

    def __init__(self, deck: Deck, child: Caller, root: Path, state: SessionState) -> None:
        self.last: CompiledPrompt | None = None
        self.state = state
        ends = (
            "Answer with your final text: that text is your output."
            if deck.output_is_string
            else "End by calling return_output with your output (its parameters are the output "
            "schema); a refusal names the field to fix."
        )
        actions = ", ".join(a.name for a in deck.actions) or "none"
        self._sections = (
            Section("DECK", deck.body.strip()),
            Section(
                "DECK CONTEXT",
                f"You are the deck {deck.name}, run as a sub-agent "
                f"({' > '.join(child.chain)}, depth {child.depth} of at most "
                f"{deck.guardrails.depth}). Project root: {root}. You have at most "
                f"{deck.guardrails.passes} model calls. Your input is the last user message "
                f"(and in the {REFERENCE_TOOL} result). Actions (other decks you can call): "
                f"{actions}. {ends} If you cannot, call fail(message).",
            ),
        )

    def render(
        self, hooks: tuple[tuple[str, str], ...] = (), *, left_out: int = 0
    ) -> CompiledPrompt:
        task = self.state.task
        sections: tuple[Section, ...] = self._sections
        if task is not None:  # the deck's own state, as update_state leaves it
            value = json.dumps(task.value, ensure_ascii=False, indent=1)
            sections = (*sections, Section("TASK STATE", value))
        self.last = CompiledPrompt(sections)
        return self.last

    def new_turn(self) -> None:
        pass


class CountedModel:
    """The child's model: each call counted for the turn and traced (sizes, not text)."""

    def __init__(self, model: Model, tally: DeckCalls, trace: Trace, action_call_id: str) -> None:
        self.inner = model
        self.id = model.id
        self.context_window = getattr(model, "context_window", None)
        self.tally = tally
        self.trace = trace
        self.action_call_id = action_call_id

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.tally.take()
        started = time.monotonic()
        self.trace.event(
            "model.request",
            actionCallId=self.action_call_id,
            model=self.id,
            messages=len(request.messages),
            tools=[tool["function"]["name"] for tool in request.tools],
        )
        async for item in self.inner.stream(request):
            if isinstance(item, ModelReply):
                self.tally.usage += item.usage
                self.trace.event(
                    "model.response",
                    actionCallId=self.action_call_id,
                    model=self.id,
                    elapsedMs=round((time.monotonic() - started) * 1000),
                    toolCalls=[call.name for call in item.tool_calls],
                    textChars=len(item.text),
                    inputTokens=item.usage.input_tokens,
                    outputTokens=item.usage.output_tokens,
                    finishReason=item.finish_reason,
                )
            yield item

    def call_parameters(self) -> dict[str, Any]:
        return self.inner.call_parameters()

    def secrets(self) -> tuple[str, ...]:
        return self.inner.secrets()


@dataclass(frozen=True)
class ActionRun:
    """One action being run: the deck, how it was called and on what, and where it is traced
    (`ids`: its actionCallId, parentActionCallId, deckPath, actionName and activity)."""

    deck: Deck
    action: ActionInfo
    value: Any
    caller: Caller
    nest: Callable[[Nested], None] | None
    trace: Trace
    ids: dict[str, Any]

    @property
    def depth(self) -> int:
        return self.caller.depth + 1

    @property
    def action_call_id(self) -> str:
        return str(self.ids["actionCallId"])

    @property
    def activity(self) -> str:
        return str(self.ids["activity"])

    @property
    def source(self) -> dict[str, str]:
        return {"deckPath": self.ids["deckPath"], "actionName": self.ids["actionName"]}


class NestedLog(Protocol):
    """Where a deck's requests and events are audited as they happen (the debug log)."""

    def record_nested_request(
        self, chain: tuple[str, ...], step: int, request: ModelRequest
    ) -> None: ...

    def record_nested_event(self, chain: tuple[str, ...], event: AnyEvent) -> None: ...


class Forward:
    """The child's recorder: its events go up as `Nested` (not its text as it streams: the
    reply's size is enough to watch), its tool calls into the trace, its requests and events
    into the debug log, in the order they happen."""

    def __init__(
        self,
        chain: tuple[str, ...],
        nest: Callable[[Nested], None] | None,
        trace: Trace,
        action_call_id: str,
        log: NestedLog | None,
    ) -> None:
        self.chain = chain
        self.nest = nest
        self.trace = trace
        self.action_call_id = action_call_id
        self.log = log

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        pass

    def record_request(self, step: int, request: ModelRequest) -> None:
        if self.log is not None:
            self.log.record_nested_request(self.chain, step, request)

    def emit(self, event: AnyEvent) -> None:
        if self.log is not None and not isinstance(event, Nested):  # a grandchild's was
            self.log.record_nested_event(self.chain, event)
        match event:
            case ToolCallStarted(call_id=call_id, name=name):
                self.trace.event(
                    "tool.call", actionCallId=self.action_call_id, callId=call_id, name=name
                )
            case ToolCallFinished(call_id=call_id, name=name, ok=ok, duration_s=took):
                self.trace.event(
                    "tool.result",
                    actionCallId=self.action_call_id,
                    callId=call_id,
                    name=name,
                    ok=ok,
                    elapsedMs=round(took * 1000),
                )
            case _:
                pass
        if self.nest is None or isinstance(event, TextDelta | ReasoningDelta):
            return
        if not isinstance(event, Nested):  # a grandchild's comes with its whole chain
            event = Nested("", self.chain, event, self.action_call_id)
        self.nest(event)


class Ended:
    """A child's tool policy: once its output is returned (or it failed), no other call of
    the step runs; until then, the parent's policy (the hooks' `before_tool`), if any."""

    def __init__(self, box: RunBox, inner: ToolPolicy | None) -> None:
        self.box = box
        self.inner = inner

    def before_tool(self, name: str, arguments: dict[str, Any], kind: str) -> PolicyVerdict | None:
        if self.box.done:
            why = "the run already ended: its output was returned, or it failed"
            return PolicyVerdict("deny", why, "deck")
        return self.inner.before_tool(name, arguments, kind) if self.inner is not None else None


__all__ = [
    "REFERENCE_TOOL",
    "ActionRun",
    "CountedModel",
    "DeckCalls",
    "DeckPrompt",
    "Ended",
    "Forward",
    "NestedLog",
    "last_event",
    "task_state_for",
    "turn_zero",
]
