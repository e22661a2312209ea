"""Turns the loop's events into conversation entries: one handler per event type.

A retry throws away the partial text of the step it retries, so the renderer removes that
step's message; tool rows are found again by call id when their call finishes, and show what the
conversation recorded for the call (as a resumed session will). The approver says when a call
waiting for approval was answered, which the loop's events do not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from zizou.core.events import (
    AgentError,
    Event,
    PermissionDecided,
    PermissionRequested,
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
from zizou.ui.outcome import Outcome, outcome_of, recorded_result
from zizou.ui.session import UiSession
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.messages import AssistantMessage, RetryNotice
from zizou.ui.widgets.tool_row import ToolRow

ERROR_FIX = "Send a message to try again, or switch models with /model or /models."
CANCELLED = "not run: the turn was cancelled"  # what the loop records for an unfinished call
NO_DURATION = frozenset({"denied", "refused", "not run"})  # the time was spent waiting, not running


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
        self.steps = 0
        self.usage = Usage()  # of the steps finished so far in this turn
        self._handlers: dict[type[Event], Callable[[Event], Awaitable[None]]] = {
            TurnStarted: self._turn_started,
            StepStarted: self._step_started,
            TextDelta: self._text,
            ToolCallStarted: self._tool_started,
            PermissionRequested: self._permission,
            PermissionDecided: self._decided,
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
        """End the streaming message and stop any countdown (the turn ended or was stopped);
        a call that did not finish shows what was recorded for it, and how long it ran."""
        await self._end_message()
        self._stop_retry()
        for row in self.rows.values():
            if row.ok is None:
                content = recorded_result(self._messages(), row.call_id) or CANCELLED
                await row.show_outcome(outcome_of(content), row.elapsed_s)

    def _messages(self) -> list[dict[str, object]]:
        return self.session.runtime.agent.conversation.messages

    async def _end_message(self) -> None:
        if self.message is not None:
            message, self.message = self.message, None
            await message.finish()

    def _stop_retry(self) -> None:
        if self.retry is not None:
            self.retry.stop()
            self.retry = None

    async def _turn_started(self, event: Event) -> None:
        self.session.record_turn_started()
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

    async def _decided(self, event: Event) -> None:
        """A call was allowed or refused (by the person, a rule or the policy): a row that
        waited for approval stops waiting, and its clock starts now."""
        assert isinstance(event, PermissionDecided)
        row = self.rows.get(event.call_id)
        if event.verdict == "deny" or row is None:
            self.host.set_status("thinking…")
            return
        row.approved()
        self.host.set_status(f"running {row.tool}…")

    async def _tool_finished(self, event: Event) -> None:
        assert isinstance(event, ToolCallFinished)
        row = self.rows.get(event.call_id)
        if row is None:
            row = await self.chat.add_tool(event.call_id, event.name, "{}")
            self.rows[event.call_id] = row
        content = recorded_result(self._messages(), event.call_id)
        outcome = outcome_of(content) if content is not None else Outcome(event.ok, event.output)
        duration = None if outcome.note in NO_DURATION else event.duration_s
        await row.show_outcome(outcome, duration, event.diff)
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
        self.steps, self.usage = event.step, self.usage + event.usage
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
