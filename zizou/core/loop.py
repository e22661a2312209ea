"""The agent loop: one user turn as a bounded sequence of model steps and tool calls.

Each step renders the system prompt afresh, streams the model's reply as events, runs the tool
calls it asked for, and feeds the results back, until the model answers without tool calls, the
step cap is hit, or a guard stops it: the same call three times, or three calls in a row to tools
that do not exist. A history the retry layer shortened to fit the context window becomes the
conversation, so the next step does not overflow again (the session writer, a recorder, sees
the same Retrying event and records the shortening). The TUI and headless mode both consume
`Agent.run_turn`; neither adds agent logic of its own.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from zizou.core.calls import CallRunner, model_text
from zizou.core.conversation import Conversation
from zizou.core.events import (
    AgentError,
    Event,
    Retrying,
    StepFinished,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from zizou.core.protocols import (
    Model,
    ModelReply,
    ModelRequest,
    TextPiece,
    ToolCall,
    TurnRecorder,
)
from zizou.errors import ProviderError
from zizou.tools import ToolResult


class AgentConfig(BaseModel):
    """The loop's limits."""

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(default=15, ge=1, le=500)
    loop_guard_repeats: int = Field(default=3, ge=2)
    unknown_tool_limit: int = Field(default=3, ge=1)  # consecutive calls to tools that do not exist


class PromptSource(Protocol):
    """Renders the system prompt from live state; called once per step."""

    def render_text(self) -> str: ...


class _StopTurn(Exception):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class Agent:
    def __init__(
        self,
        model: Model,
        runner: CallRunner,
        prompt: PromptSource,
        conversation: Conversation | None = None,
        config: AgentConfig | None = None,
        recorders: list[TurnRecorder] | None = None,
    ) -> None:
        self.model = model
        self.runner = runner
        self.prompt = prompt
        self.conversation = conversation if conversation is not None else Conversation()
        self.config = config or AgentConfig()
        self.recorders = list(recorders or [])

    def build_request(self, system: str | None = None) -> ModelRequest:
        """The one place a step's request is assembled."""
        return ModelRequest(
            system=self.prompt.render_text() if system is None else system,
            messages=list(self.conversation.messages),
            tools=self.runner.registry.schemas(),
        )

    async def run_turn(self, user_text: str) -> AsyncIterator[Event]:
        """Run one turn, yielding its events (each also goes to every recorder)."""
        for recorder in self.recorders:
            recorder.begin_turn(user_text, self.conversation.messages)
        async with aclosing(self._turn(user_text)) as events:
            async for event in events:
                for recorder in self.recorders:
                    recorder.emit(event)
                yield event

    async def _request(self, step: int) -> ModelRequest:
        # The prompt is rendered in a thread: on a large repository the repo map can take a
        # second, and the event loop (the app's screen and keys) must not wait for it.
        system = await asyncio.to_thread(self.prompt.render_text)
        request = self.build_request(system)
        for recorder in self.recorders:
            recorder.record_request(step, request)
        return request

    async def _turn(self, user_text: str) -> AsyncGenerator[Event, None]:
        yield TurnStarted(user_text)
        self.conversation.add_user(user_text)
        usage = Usage()
        seen: Counter[tuple[str, str]] = Counter()
        unknown: list[str] = []  # the names of the latest consecutive calls to unknown tools
        step = 0
        try:
            while step < self.config.max_steps:
                step += 1
                yield StepStarted(step)
                reply: ModelReply | None = None
                async for item in self.model.stream(await self._request(step)):
                    if isinstance(item, TextPiece):
                        yield TextDelta(item.text)
                    elif isinstance(item, Retrying):
                        if item.resent_messages is not None:  # shortened to fit: keep it so
                            self.conversation.messages[:] = list(item.resent_messages)
                        yield item
                    else:
                        reply = item
                if reply is None:
                    raise ProviderError("the model's stream ended without a reply")
                usage += reply.usage
                self.conversation.add_assistant(reply.text, reply.tool_calls)
                yield StepFinished(step, reply.usage, reply.finish_reason)
                if not reply.tool_calls:
                    yield TurnFinished("done", reply.text, step, usage)
                    return
                for call in reply.tool_calls:
                    self._guard(seen, call)
                    async for event in self._run_call(call):
                        yield event
                    self._guard_unknown(unknown, call)
            message = (
                f"stopped after {step} steps (the step cap); the work so far is kept. "
                "Send another message to continue, or raise --max-steps."
            )
            yield TurnFinished("max_steps", _last_text(self.conversation), step, usage, message)
        except _StopTurn as stop:
            self.conversation.close_pending(f"not run: {stop}")
            yield TurnFinished("loop_guard", _last_text(self.conversation), step, usage, str(stop))
        except ProviderError as exc:
            self.conversation.close_pending("not run: the provider failed")
            yield AgentError(str(exc))
            yield TurnFinished("error", "", step, usage, str(exc))
        finally:
            self.conversation.close_pending("not run: the turn was cancelled")

    def _guard(self, seen: Counter[tuple[str, str]], call: ToolCall) -> None:
        key = (call.name, _canonical(call.arguments))
        seen[key] += 1
        if seen[key] >= self.config.loop_guard_repeats:
            raise _StopTurn(
                "loop_guard",
                f"the model called {call.name} with the same arguments {seen[key]} times in "
                "this turn, so the turn was stopped; rephrase the request or give more detail.",
            )

    def _guard_unknown(self, unknown: list[str], call: ToolCall) -> None:
        if self.runner.registry.get(call.name) is not None:
            unknown.clear()
            return
        unknown.append(call.name)
        if len(unknown) >= self.config.unknown_tool_limit:
            names = ", ".join(repr(name) for name in dict.fromkeys(unknown))
            raise _StopTurn(
                "loop_guard",
                f"the model called tools that do not exist {len(unknown)} times in a row "
                f"({names}), so the turn was stopped; the tools are: "
                f"{', '.join(self.runner.registry.names())}. Try another model, or rephrase "
                "the request.",
            )

    async def _run_call(self, call: ToolCall) -> AsyncIterator[Event]:
        yield ToolCallStarted(call.id, call.name, call.arguments)
        started = time.monotonic()
        result = ToolResult.error("the tool produced no result")
        async for item in self.runner.run(call):
            if isinstance(item, ToolResult):
                result = item
            else:
                yield item
        self.conversation.add_tool_result(call.id, model_text(result))
        yield ToolCallFinished(
            call.id,
            call.name,
            result.ok,
            result.output,
            result.duration_s if result.duration_s is not None else time.monotonic() - started,
            result.diff,
        )


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments or "{}"), sort_keys=True)
    except ValueError:
        return arguments


def _last_text(conversation: Conversation) -> str:
    for message in reversed(conversation.messages):
        if message["role"] == "assistant" and message.get("content"):
            return str(message["content"])
    return ""


__all__ = ["Agent", "AgentConfig", "PromptSource"]
