"""Turns the loop's events into conversation entries: one handler per event type.

A retry throws away the partial text of the step it retries, so the renderer removes that
step's message; tool rows are found again by call id when their call finishes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from zizou.core.events import (
    AgentError,
    Event,
    PermissionRequested,
    Retrying,
    StepFinished,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from zizou.ui.session import UiSession
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.messages import AssistantMessage, RetryNotice
from zizou.ui.widgets.tool_row import ToolRow

ERROR_FIX = "Send a message to try again, or switch models with /model or /models."


class RenderHost(Protocol):
    def set_status(self, state: str) -> None: ...

    def refresh_sidebar(self) -> None: ...


class EventRenderer:
    def __init__(self, chat: ChatView, session: UiSession, host: RenderHost) -> None:
        self.chat = chat
        self.session = session
        self.host = host
        self.message: AssistantMessage | None = None
        self.rows: dict[str, ToolRow] = {}
        self.retry: RetryNotice | None = None
        self.finished: TurnFinished | None = None
        self._handlers: dict[type[Event], Callable[[Event], Awaitable[None]]] = {
            TurnStarted: self._turn_started,
            StepStarted: self._step_started,
            TextDelta: self._text,
            ToolCallStarted: self._tool_started,
            PermissionRequested: self._permission,
            ToolCallFinished: self._tool_finished,
            Retrying: self._retrying,
            StepFinished: self._step_finished,
            TurnFinished: self._turn_finished,
            AgentError: self._error,
        }

    async def handle(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            await handler(event)

    async def close(self) -> None:
        """End the streaming message and stop any countdown (the turn ended or was stopped)."""
        await self._end_message()
        self._stop_retry()
        for row in self.rows.values():
            if row.ok is None:
                await row.finish(False, "not finished: the turn was interrupted", 0.0, None)

    async def _end_message(self) -> None:
        if self.message is not None:
            message, self.message = self.message, None
            await message.finish()

    def _stop_retry(self) -> None:
        if self.retry is not None:
            self.retry.stop()
            self.retry = None

    async def _turn_started(self, event: Event) -> None:
        self.host.set_status("thinking…")

    async def _step_started(self, event: Event) -> None:
        assert isinstance(event, StepStarted)
        self.host.set_status(f"thinking… (step {event.step})")

    async def _text(self, event: Event) -> None:
        assert isinstance(event, TextDelta)
        self._stop_retry()
        if self.message is None:
            self.message = await self.chat.add_assistant()
            self.host.set_status("writing…")
        await self.message.write(event.text)

    async def _tool_started(self, event: Event) -> None:
        assert isinstance(event, ToolCallStarted)
        await self._end_message()
        self.rows[event.call_id] = await self.chat.add_tool(
            event.call_id, event.name, event.arguments
        )
        self.host.set_status(f"running {event.name}…")

    async def _permission(self, event: Event) -> None:
        assert isinstance(event, PermissionRequested)
        row = self.rows.get(event.call_id)
        if row is not None:
            row.awaiting_approval()
        self.host.set_status(f"waiting for your approval of {event.tool}")

    async def _tool_finished(self, event: Event) -> None:
        assert isinstance(event, ToolCallFinished)
        row = self.rows.get(event.call_id)
        if row is None:
            row = await self.chat.add_tool(event.call_id, event.name, "{}")
            self.rows[event.call_id] = row
        await row.finish(event.ok, event.output, event.duration_s, event.diff)
        self.host.set_status("thinking…")

    async def _retrying(self, event: Event) -> None:
        assert isinstance(event, Retrying)
        if self.message is not None:  # a retry discards the step's partial text
            message, self.message = self.message, None
            await message.finish()
            await message.remove()
        self._stop_retry()
        self.retry = await self.chat.add_retry(event.attempt, event.delay_s, event.reason)
        self.host.set_status(f"retrying (attempt {event.attempt})…")

    async def _step_finished(self, event: Event) -> None:
        assert isinstance(event, StepFinished)
        await self._end_message()
        self.session.record_step(event.usage)
        self.host.refresh_sidebar()

    async def _turn_finished(self, event: Event) -> None:
        assert isinstance(event, TurnFinished)
        self.finished = event
        await self._end_message()
        self.session.record_turn(event.usage)
        if event.message and event.reason not in ("done", "error"):
            await self.chat.add_notice(event.message, "warning")
        self.host.refresh_sidebar()

    async def _error(self, event: Event) -> None:
        assert isinstance(event, AgentError)
        await self._end_message()
        self._stop_retry()
        await self.chat.add_notice(event.message, "error", ERROR_FIX)


__all__ = ["EventRenderer", "RenderHost"]
