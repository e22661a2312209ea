"""Turns the loop's events into conversation entries: one case per event type.

`handle` matches on `AnyEvent` and ends in `assert_never`, so a kind of event it misses fails
the type check. The model's reasoning streams into a thinking block above its answer, folded to
one line once the answer or a tool call starts. A retry throws away the partial text (and
reasoning) of the step it retries, so the renderer removes that step's message; tool rows are
found again by call id when their call reports progress or finishes, and a finished call shows
what the conversation recorded for it (as a resumed session will). A deck's call gets a deck
row, which holds the calls of the deck's run as its `Nested` events come. A cancelled turn's
ending is told by the turn controller, which also hears of cancellations the loop could not
report.

The model's updates of the task state are shown as the plan, not as tool rows: each turn has one
plan line, updated and moved to the end after a step that changed the state. An update_state
call gets a row only when it failed, or when there is no plan to show for it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, assert_never

from zizou.contracts.events import (
    AgentError,
    AnyEvent,
    BudgetWarning,
    ChecksReported,
    Compacted,
    DeckSuspense,
    HookWarning,
    ModelReplied,
    Nested,
    PermissionDecided,
    PermissionRequested,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepPlanned,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
    TurnStarted,
    Usage,
)
from zizou.contracts.messages import Message
from zizou.contracts.task_state import plan_line
from zizou.decks.display import INTO, nested_line
from zizou.tools.jobs import output_ref
from zizou.ui.job_commands import kept_output
from zizou.ui.outcome import Outcome, background_job, outcome_of, recorded_result
from zizou.ui.session import UiSession
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.deck_row import DeckRow, is_deck_label
from zizou.ui.widgets.messages import AssistantMessage, RetryNotice
from zizou.ui.widgets.plan_line import PlanLine
from zizou.ui.widgets.thinking import ThinkingBlock
from zizou.ui.widgets.tool_row import COMMAND_TOOLS, ToolRow

if TYPE_CHECKING:
    from zizou.decks.run import RunRecord

ERROR_FIX = "Send a message to try again, or switch models with /model or /models."
RAISE_CAP = "Before a call would pass the cap, you are asked whether to raise it."
CANCELLED = "not run: the turn was cancelled"  # what the loop records for an unfinished call
NO_DURATION = frozenset({"denied", "refused", "not run"})  # the time was spent waiting, not running
TOLD_BY_NOTICE = frozenset({"max_steps", "loop_guard", "budget"})  # endings told as notices
STATE_TOOL = "update_state"  # shown as the plan line


class RenderHost(Protocol):
    """What the renderer tells besides the conversation: the status line and the sidebar."""

    def set_status(self, state: str) -> None: ...

    def session_changed(self) -> None: ...


def compaction_notice(event: Compacted) -> str:
    """What the chat says of a compaction: who started it, how much smaller, the summary."""
    why = "you asked" if event.by == "user" else "the last request neared the context window"
    size = f"~{event.tokens_before:,} → ~{event.tokens_after:,} tokens"
    return f"Compacted ({why}): the conversation is now this summary ({size}).\n\n{event.summary}"


class EventRenderer:
    def __init__(self, chat: ChatView, session: UiSession, host: RenderHost) -> None:
        self.chat = chat
        self.session = session
        self.host = host
        self.message: AssistantMessage | None = None
        self.thinking: ThinkingBlock | None = None  # the step's reasoning, while it streams
        self.rows: dict[str, ToolRow] = {}
        self.retry: RetryNotice | None = None
        self.finished: TurnFinished | None = None
        self.steps = 0
        self.usage = Usage()  # of the steps finished so far in this turn
        self.plan: PlanLine | None = None  # this turn's plan line
        self.plan_shown: Mapping[str, Any] | None = self._state_value()  # what it shows
        self.state_calls: dict[str, ToolCallStarted] = {}  # update_state calls not finished
        self.running: dict[str, str] = {}  # the calls running (side by side: several), by id

    async def handle(self, event: AnyEvent) -> None:
        match event:
            case TurnStarted():
                self.session.record_turn_started()
                self.host.set_status("thinking…")
            case StepStarted(step=step):
                self.host.set_status(f"thinking… (step {step})")
            case TextDelta(text=text):
                await self._text(text)
            case ReasoningDelta(text=text):
                await self._reasoning(text)
            case Retrying():
                await self._retrying(event)
            case ModelReplied():
                await self._end_message()  # the reply is whole; its tool calls come next
            case ToolCallStarted():
                await self._tool_started(event)
            case StepPlanned():
                pass  # the sidebar follows the workspace through the session's state
            case ToolProgress(call_id=call_id, text=text):
                if (row := self.rows.get(call_id)) is not None:
                    row.show_progress(text)
            case PermissionRequested():
                self._permission(event)
            case PermissionDecided():
                self._decided(event)
            case ToolCallFinished():
                await self._tool_finished(event)
            case StepFinished():
                await self._step_finished(event)
            case AgentError():
                await self._error(event)
            case Compacted():
                await self._end_message()
                await self.chat.add_notice(compaction_notice(event), "info")
            case HookWarning(hook=hook, message=text):
                await self.chat.add_notice(f"{hook}: {text}", "warning")
            case ChecksReported(text=text):
                await self._end_message()
                await self.chat.add_notice(text, "warning")
            case BudgetWarning(message=text):
                await self.chat.add_notice(text, "warning", RAISE_CAP)
                self.host.session_changed()
            case DeckSuspense(chain=chain, message=text):
                await self.chat.add_notice(f"{INTO.join(chain)}: {text}", "info")
            case Nested():
                self._nested(event)
            case TurnFinished():
                await self._turn_finished(event)
            case _:
                assert_never(event)

    async def close(self) -> None:
        """End the streaming message and stop any countdown (the turn ended or was stopped);
        a call that did not finish shows what was recorded for it, and how long it ran."""
        await self._end_message()
        self._stop_retry()
        for call_id in list(self.state_calls):
            await self._state_row(call_id)
        for row in self.rows.values():
            if row.ok is None:
                recorded = recorded_result(self._records(), row.call_id)
                await row.show_outcome(recorded or outcome_of(CANCELLED), row.elapsed_s)

    def _records(self) -> list[Message]:
        return self.session.kernel.state.conversation.records

    async def _end_message(self) -> None:
        self._stop_retry()
        self._end_thinking()
        if self.message is not None:
            message, self.message = self.message, None
            await message.finish()

    def _stop_retry(self) -> None:
        """The attempt the countdown stood for is under way (or the turn ended): its line goes,
        as the conversation goes on without it (the debug log keeps every retry)."""
        if self.retry is not None:
            self.retry.stop()
            self.retry.remove()
            self.retry = None

    def _end_thinking(self) -> None:
        if self.thinking is not None:
            thinking, self.thinking = self.thinking, None
            thinking.finish()

    async def _reasoning(self, text: str) -> None:
        if self.message is not None:  # reasoning after some of the answer: that part is whole
            await self._end_message()
        self._stop_retry()
        if self.thinking is None:
            self.thinking = await self.chat.add_thinking()
        self.thinking.write(text)

    async def _text(self, text: str) -> None:
        self._stop_retry()
        self._end_thinking()
        if self.message is None:
            self.message = self.chat.add_assistant()
            self.host.set_status("writing…")
        self.message.write(text)

    async def _retrying(self, event: Retrying) -> None:
        if self.message is not None:  # a retry discards the step's partial text
            message, self.message = self.message, None
            await message.finish()
            await message.remove()
        if self.thinking is not None:  # and its reasoning
            thinking, self.thinking = self.thinking, None
            await thinking.remove()
        self._stop_retry()
        self.retry = await self.chat.add_retry(event.attempt, event.delay_s, event.reason)
        self.host.set_status(f"retrying (attempt {event.attempt})…")

    async def _tool_started(self, event: ToolCallStarted) -> None:
        await self._end_message()
        self.running[event.call_id] = event.name
        self.host.set_status(f"running {event.name}…")
        if event.name == STATE_TOOL:
            self.state_calls[event.call_id] = event  # a row only if the plan cannot tell it
            return
        if is_deck_label(event.label):  # a deck's call: its run's calls show under it
            row = DeckRow(
                event.call_id, event.name, event.arguments, summary=event.label, runs=self._runs
            )
            await self.chat.add(row)
            self.rows[event.call_id] = row
            return
        self.rows[event.call_id] = await self.chat.add_tool(
            event.call_id, event.name, event.arguments, event.label
        )

    def _runs(self) -> Mapping[str, RunRecord]:
        decks = self.session.kernel.decks
        return decks.runs if decks is not None else {}

    def _nested(self, event: Nested) -> None:
        """An event of a deck's run: into its row's list, or its line under a plain row."""
        row = self.rows.get(event.call_id)
        if isinstance(row, DeckRow):
            if (message := row.nested(event)) is not None:
                self.host.set_status(message)
        elif row is not None and (line := nested_line(event)) is not None:
            row.show_progress(line)

    def _permission(self, event: PermissionRequested) -> None:
        row = self.rows.get(event.call_id)
        if row is not None:
            row.awaiting_approval()
        self.host.set_status(f"waiting for your approval of {event.tool}")

    def _decided(self, event: PermissionDecided) -> None:
        """A call was allowed or refused (by the person, a rule or the policy): a row that
        waited for approval stops waiting, and its clock starts now."""
        row = self.rows.get(event.call_id)
        if event.verdict == "deny" or row is None:
            self.host.set_status("thinking…")
            return
        row.approved()
        self.host.set_status(f"running {row.tool}…")

    def _after_call(self) -> None:
        """The status once a call ended: the calls still running beside it, else thinking."""
        names = list(dict.fromkeys(self.running.values()))
        self.host.set_status(f"running {', '.join(names)}…" if names else "thinking…")

    async def _tool_finished(self, event: ToolCallFinished) -> None:
        self.running.pop(event.call_id, None)
        if event.call_id in self.state_calls:
            if event.ok and await self._show_plan(called=True):
                del self.state_calls[event.call_id]
                self._after_call()
                return
            await self._state_row(event.call_id)
        row = self.rows.get(event.call_id)
        if row is None:
            row = await self.chat.add_tool(event.call_id, event.name, "{}")
            self.rows[event.call_id] = row
        recorded = recorded_result(self._records(), event.call_id)
        outcome = recorded or Outcome(event.ok, event.output)
        duration = None if outcome.note in NO_DURATION else event.duration_s
        if row.tool in COMMAND_TOOLS and (kept := output_ref(outcome.output)) is not None:
            row.full_output = partial(kept_output, self.session.kernel.jobs, kept)
        await row.show_outcome(outcome, duration, event.diff)
        job_id = background_job(row.preview)
        if job_id is not None and (job := self.session.kernel.jobs.get(job_id)) is not None:
            row.follow_job(job)
        self._after_call()

    async def _state_row(self, call_id: str) -> None:
        """The row of an update_state call that the plan line does not stand for."""
        started = self.state_calls.pop(call_id)
        self.rows[call_id] = await self.chat.add_tool(
            call_id, started.name, started.arguments, started.label
        )

    def _state_value(self) -> Mapping[str, Any] | None:
        task = self.session.kernel.state.task
        return task.value if task is not None else None

    async def _show_plan(self, called: bool = False) -> bool:
        """Show the plan in the turn's line, at the end of the conversation, if the state
        changed since the line last showed it (or the model just `called` update_state);
        whether a line shows it now. Committed values are replaced, never changed in place, so
        a new value is a change."""
        value = self._state_value()
        if value is None or (value is self.plan_shown and not called):
            return self.plan is not None
        self.plan_shown = value
        if plan_line(value) is None:  # no plan, or an empty one
            if self.plan is not None:
                await self.plan.remove()
                self.plan = None
            return False
        if self.plan is None:
            self.plan = await self.chat.add_plan(value)
        else:
            self.plan.show(value)
            self.chat.to_end(self.plan)
        return True

    async def _step_finished(self, event: StepFinished) -> None:
        await self._end_message()
        await self._show_plan()
        self.steps, self.usage = event.step, self.usage + event.usage
        self.session.record_step(event.usage)
        self.host.session_changed()

    async def _error(self, event: AgentError) -> None:
        await self._end_message()
        self._stop_retry()
        await self.chat.add_notice(event.message, "error", ERROR_FIX)

    async def _turn_finished(self, event: TurnFinished) -> None:
        self.finished = event
        await self._end_message()
        self.session.record_turn(event.usage)
        decks = self.session.kernel.decks
        if decks is not None and decks.deck_calls.used:  # what the turn's decks spent counts too
            self.session.totals += decks.deck_calls.usage
        hooks = self.session.kernel.hooks
        for warning in hooks.pending_warnings() if hooks is not None else ():
            await self.chat.add_notice(f"{warning.hook}: {warning.message}", "warning")
        if event.message and event.reason in TOLD_BY_NOTICE:
            await self.chat.add_notice(event.message, "warning")
        self.host.session_changed()


__all__ = ["EventRenderer", "RenderHost"]
