"""The agent loop: one user turn as a bounded sequence of model steps and tool calls.

Each step renders the system prompt afresh, streams the model's reply as events, runs the tool
calls it asked for (consecutive reads side by side, see core/parallel.py), and feeds the results
back, until the model answers without tool calls, the step cap is hit, or a guard stops it
(core/guards.py: the same call three times in a row, calls to tools that do not exist, too many
compactions or model calls in one turn; core/spending.py: a spending cap). A history the retry
layer shortened to fit the context window becomes the conversation, so the next step does not
overflow again (the session writer, a recorder, sees the same Retrying event and records the
shortening). The TUI and headless mode both consume `Agent.run_turn`; neither adds agent logic
of its own.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import traceback
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field

from zizou.agent.calls import CallRunner, ParsedCall, model_text
from zizou.agent.guards import RepeatGuard, StopTurn, UnknownToolGuard, compactions_exceeded
from zizou.agent.parallel import CallDone, runs_alongside, side_by_side
from zizou.agent.prompt import CompiledPrompt
from zizou.agent.spending import Metered, Spending
from zizou.agent.summary import summarise
from zizou.contracts.conversation import Conversation, turn_starts, windowed
from zizou.contracts.events import (
    AgentError,
    AnyEvent,
    BudgetWarning,
    ChecksReported,
    Compacted,
    FinishReason,
    HookWarning,
    ModelReplied,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepPlanned,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    Usage,
)
from zizou.contracts.images import with_images
from zizou.contracts.messages import AssistantMessage, ImagePart, ToolMessage
from zizou.contracts.protocols import (
    ChangeChecks,
    Model,
    ModelReply,
    ModelRequest,
    NoEffects,
    StepEffects,
    StepInput,
    TextPiece,
    ToolCall,
    TurnRecorder,
)
from zizou.errors import ProviderError, ShorteningRefused
from zizou.tools import ToolResult

log = logging.getLogger(__name__)
# After the text of a reply the user stopped as it streamed, in the history the model reads.
CUT_REPLY = "\n\n[interrupted: the user stopped this reply here]"


class AgentConfig(BaseModel):
    """The loop's limits."""

    model_config = ConfigDict(frozen=True)

    max_steps: int = Field(ge=1, le=500)  # its default is RunOptions' (config/options.py)
    loop_guard_repeats: int = Field(default=3, ge=2)  # the same call this many times in a row
    max_compactions: int = Field(default=2, ge=0)  # automatic ones, per turn
    unknown_tool_limit: int = Field(default=3, ge=1)  # consecutive calls to tools that do not exist
    # How many earlier user turns each request sends, whole; None: all. The turn running now
    # is always sent in full (its tool calls and results).
    history_window: int | None = Field(default=None, ge=0)
    # Before a turn, the history is summarised when the previous request used more than this
    # share of the model's context window (when the model's window is known); None: never.
    compact_threshold: float | None = Field(default=None, gt=0, lt=1)


class PromptSource(Protocol):
    """Renders the system prompt from live state; called once per step."""

    def render(
        self, hooks: tuple[tuple[str, str], ...] = (), *, left_out: int = 0
    ) -> CompiledPrompt: ...

    def new_turn(self) -> None: ...


@dataclass
class _Progress:
    """How far the turn got: what a turn that ends early (cancelled, failed) reports."""

    step: int = 0
    usage: Usage = field(default_factory=Usage)
    step_open: bool = False  # StepStarted sent, StepFinished not yet
    refused: bool = False  # a spending cap refused the open step's model call: not a step
    step_usage: Usage = field(default_factory=Usage)
    finished: bool = False  # TurnFinished went out
    compactions: int = 0  # automatic ones in this turn: the summary, the overflow shortenings
    replying: list[str] = field(default_factory=list)  # the text of the reply streaming now


class Agent:
    def __init__(
        self,
        model: Model,
        runner: CallRunner,
        prompt: PromptSource,
        conversation: Conversation,
        config: AgentConfig,
        recorders: list[TurnRecorder] | None = None,
        effects: StepEffects | None = None,
        *,
        spending: Spending | None = None,
        finished: Callable[[], bool] | None = None,
        checks: ChangeChecks | None = None,
        turns: int = 0,
    ) -> None:
        """Complete at construction: nothing is set on an agent after it is made.

        `spending`: the run's spend and caps, shared with its decks (None: nothing is
        counted). `finished`: asked after each step's tool calls, True ends the turn there,
        done (a deck's run ends once its output was returned, whatever else the model would
        do). `checks`: the checks the user configured, asked when the model ends a turn (the
        main agent's). `turns`: the turns the session ran before (a resumed one's), so a
        hook's turn number goes on."""
        self.model = model
        self.runner = runner
        self.prompt = prompt
        self.conversation = conversation
        self.config = config
        self.recorders = list(recorders or [])
        self.effects: StepEffects = effects or NoEffects()
        self.turns = turns
        self.last_input_tokens = 0  # the latest request's, for automatic compaction
        self.spending = spending
        self.finished = finished
        self.checks = checks

    def switch_model(self, model: Model) -> None:
        """The model of the requests from now on (`/model`); the conversation goes on."""
        self.model = model

    def set_history_window(self, window: int | None) -> None:
        """How many earlier turns each request carries from now on (None: all)."""
        self.config = self.config.model_copy(update={"history_window": window})

    def limit_steps(self, max_steps: int) -> None:
        """The step cap of the turns from now on (a deck's run spends its passes)."""
        self.config = self.config.model_copy(update={"max_steps": max_steps})

    def build_request(
        self, step: int = 1, usage: Usage | None = None
    ) -> tuple[ModelRequest, StepPlanned, tuple[HookWarning, ...]]:
        """The one place a step's request is assembled, as a pipeline: the step effects run
        (hooks: tools to hide, systems to add, reminders), the layers render, and the request
        gets the history, this step's reminders and the tools offered; the plan says how, and
        the warnings are the hooks' that failed while it was planned."""
        usage = usage or Usage()
        registry, ctx = self.runner.registry, self.runner.ctx
        # A tool that could do nothing now (no job, no window) is not offered: a smaller
        # request; it is offered from the step after it applies.
        advertised = [tool for tool in registry if tool.advertised and tool.applies(ctx)]
        history = self.conversation.messages
        changes = self.effects.plan_step(
            StepInput(
                step,
                self.turns,
                tuple(t.name for t in advertised),
                tuple(history),
                self.model.id,
                usage,
            )
        )
        replaced = changes.messages is not None
        shaped = list(changes.messages) if changes.messages is not None else history
        # The records say where turns start; a hook's replacement has only the wire format.
        starts = turn_starts(shaped if replaced else self.conversation.records)
        messages, left_out = windowed(shaped, self.config.history_window, starts)
        takes_images = bool(getattr(self.model, "takes_images", False))
        messages = with_images(messages, self.conversation.records, takes_images)
        hidden = tuple((name, why) for name, why in changes.hidden if registry.get(name))
        hidden_names = {name for name, _ in hidden}
        compiled = self.prompt.render(changes.systems, left_out=left_out)
        offered = [tool for tool in advertised if tool.name not in hidden_names]
        if changes.reminders:
            messages = [*messages, {"role": "user", "content": _reminders(changes.reminders)}]
        request = ModelRequest(
            system=compiled.text,
            messages=messages,
            tools=[tool.schema() for tool in offered],
            stable_chars=compiled.stable_chars,
            ephemeral=1 if changes.reminders else 0,
            whole_history=not replaced and left_out == 0,
        )
        plan = StepPlanned(
            step,
            tuple(tool.name for tool in offered),
            hidden,
            changes.effects_run,
            tuple(source for source, _ in changes.reminders),
            left_out,
            compiled.windows,
        )
        return request, plan, changes.warnings

    async def run_turn(
        self, user_text: str, images: tuple[ImagePart, ...] = ()
    ) -> AsyncGenerator[AnyEvent, None]:
        """Run one turn on the user's message (and the images attached to it), yielding its
        events (each also goes to every recorder).

        The lifecycle is the loop's: TurnStarted, then per step StepStarted, the text, one
        ModelReplied, each tool call's start and finish, StepFinished once its tools are done,
        and last one TurnFinished with its reason, always. Cancelled (the task running this is
        cancelled), the call that was running is answered with what it did (how long it ran,
        what it printed: never that it did not run), a reply cut as it streamed is kept marked
        so, the open step finishes and TurnFinished("cancelled") is yielded before the
        cancellation goes on; closed early (the consumer stops reading), the recorders still
        get them all, so the session file and the debug log record how the turn ended.
        """
        progress = _Progress()
        for recorder in self.recorders:
            try:
                recorder.begin_turn(user_text, self.conversation.messages)
            except Exception:  # a recorder's failure must not stop the turn
                log.exception("recorder %s failed to begin the turn", type(recorder).__name__)
        try:
            async with aclosing(self._turn(user_text, progress, images)) as events:
                async for event in events:
                    self._record(event, progress)
                    yield event
        except asyncio.CancelledError:
            for event in self._ending(progress, "cancelled", "the turn was cancelled"):
                self._record(event, progress)
                yield event
            raise
        finally:
            if not progress.finished:  # the consumer stopped reading: no one to yield to
                for event in self._ending(progress, "cancelled", "the turn was stopped"):
                    self._record(event, progress)

    def _record(self, event: AnyEvent, progress: _Progress) -> None:
        progress.finished = progress.finished or isinstance(event, TurnFinished)
        for recorder in self.recorders:
            try:
                recorder.emit(event)
            except Exception:  # a recorder's bug must not end the turn, nor hide the others
                log.exception("recorder %s failed on %s", type(recorder).__name__, event.type)

    def _ending(
        self, progress: _Progress, reason: FinishReason, message: str, kind: str | None = None
    ) -> list[AnyEvent]:
        """The events that close a turn cut short: the stopped calls' ends, the open step's
        end, then the turn's. A reply the user stopped as it streamed is kept, marked so."""
        events: list[AnyEvent] = []
        text = _last_text(self.conversation) if reason != "error" else ""
        try:
            events += self._answer_pending(message)
            if reason == "cancelled" and "".join(progress.replying).strip():
                self.conversation.add_assistant("".join(progress.replying) + CUT_REPLY)
            progress.replying.clear()
        except Exception:  # the session file cannot take it (a full disk): the end still comes
            log.exception("the turn's unanswered calls could not be recorded")
        if progress.step_open:
            progress.step_open = False
            events.append(StepFinished(progress.step, progress.step_usage, None))
        steps = progress.step - progress.refused
        events.append(TurnFinished(reason, text, steps, progress.usage, message, kind))
        return events

    def _answer_pending(self, message: str) -> list[AnyEvent]:
        """Answer the calls the turn leaves unanswered: one stopped while it ran with what it
        did (its tool's account of the stop: for a command, how long it ran and what it
        printed), told as its ToolCallFinished; one that never started, that it was not run."""
        stopped = self.runner.take_stopped()
        events: list[AnyEvent] = []
        for call_id in self.conversation.pending_call_ids():
            if call_id in stopped:
                name, result = stopped[call_id]
                done = call_done(call_id, name, result, result.duration_s or 0.0)
                self.conversation.add_tool_result(done.message)
                events.append(done.event)
        self.conversation.close_pending(f"not run: {message}")
        return events

    async def _request(
        self, progress: _Progress
    ) -> tuple[ModelRequest, StepPlanned, tuple[HookWarning, ...]]:
        # The request is built in a thread: on a large repository the repo map can take a
        # second, and the event loop (the app's screen and keys) must not wait for it.
        built = await asyncio.to_thread(self.build_request, progress.step, progress.usage)
        self.runner.offer(built[1].offered, dict(built[1].hidden))  # any other tool is refused
        return built

    async def _turn(
        self, user_text: str, progress: _Progress, images: tuple[ImagePart, ...] = ()
    ) -> AsyncGenerator[AnyEvent, None]:
        yield TurnStarted(user_text)
        repeats = RepeatGuard(self.config.loop_guard_repeats)
        unknown = UnknownToolGuard(self.config.unknown_tool_limit, self.runner.registry.names)
        self.turns += 1
        try:
            if self._compaction_due():
                progress.compactions += 1
                try:
                    yield await self._compacted("auto")
                except ProviderError as exc:  # the turn goes on with the whole history
                    message = f"the conversation could not be compacted ({exc}); it is sent whole"
                    yield AgentError(message, fatal=False)
                if warning := self._budget_warning():
                    yield warning
            self.prompt.new_turn()
            if self.checks is not None:
                self.checks.new_turn()
            self.conversation.add_user(user_text, images=images)
            while progress.step < self.config.max_steps:
                progress.step += 1
                progress.step_open, progress.step_usage = True, Usage()
                yield StepStarted(progress.step)
                reply: ModelReply | None = None
                async with aclosing(self._reply(progress)) as replying:
                    async for event in replying:
                        if isinstance(event, ModelReply):
                            reply = event
                        else:
                            yield event
                assert reply is not None
                if warning := self._budget_warning():
                    yield warning
                async with aclosing(self._calls(reply.tool_calls, repeats, unknown)) as calling:
                    async for tool_event in calling:
                        yield tool_event
                progress.step_open = False
                yield StepFinished(progress.step, reply.usage, reply.finish_reason)
                if self.finished is not None and self.finished():
                    yield TurnFinished("done", reply.text, progress.step, progress.usage)
                    return
                if not reply.tool_calls:
                    report = await self._checks_report()
                    if report is None:
                        yield TurnFinished("done", reply.text, progress.step, progress.usage)
                        return
                    self.conversation.add_checks_report(report)
                    yield ChecksReported(report)
            steps = f"{progress.step} step{'s' * (progress.step != 1)}"
            message = (
                f"stopped after {steps} (the step cap); the work so far is kept. "
                "Send another message to continue, or raise max_steps."
            )
            text = _last_text(self.conversation)
            yield TurnFinished("max_steps", text, progress.step, progress.usage, message)
        except StopTurn as stop:
            for event in self._ending(progress, stop.reason, str(stop)):
                yield event
        except ProviderError as exc:
            yield AgentError(str(exc))
            kind = getattr(exc, "kind", "provider")  # or "unknown_model": a wrong model id
            for event in self._ending(progress, "error", str(exc), kind):
                yield event
        except Exception as exc:  # a bug: said plainly, its traceback kept in the debug log
            log.exception("the turn failed")
            message = f"zizou failed: {type(exc).__name__}: {exc}"
            yield AgentError(message, detail=traceback.format_exc())
            for event in self._ending(progress, "error", message, "runtime"):
                yield event

    async def _checks_report(self) -> str | None:
        """What the configured checks found in the turn's changes, to send back; None: the
        turn ends (nothing new, no checks, or their rounds for this turn are spent)."""
        if self.checks is None:
            return None
        try:
            return await self.checks.turn_end()
        except Exception:  # a broken checker must not end the turn as a failure
            log.exception("the checks failed at the end of the turn")
            return None

    async def _reply(self, progress: _Progress) -> AsyncGenerator[AnyEvent | ModelReply, None]:
        """One model call: its text and retry notices, then ModelReplied and the reply."""
        reply: ModelReply | None = None
        request, plan, warnings = await self._request(progress)
        yield plan  # the recorders see how the request was planned, then the request itself
        for warning in warnings:
            yield warning
        shorten = progress.compactions < self.config.max_compactions
        request = dataclasses.replace(request, may_shorten=shorten)
        model = self.model
        if self.spending is not None:  # the caps may refuse it, or limit its reply
            progress.refused = True
            request = await self.spending.admit(model.id, request)
            progress.refused = False
        for recorder in self.recorders:
            recorder.record_request(progress.step, request)
        try:
            async for item in self._streamed(model, request, progress):
                if isinstance(item, ModelReply):
                    reply = item
                else:
                    yield item
        except ShorteningRefused:
            raise compactions_exceeded(progress.compactions, self.config.max_compactions) from None
        if reply is None:
            raise ProviderError("the model's stream ended without a reply")
        if self.spending is not None:
            self.spending.record(model.id, reply.usage)
        reply = _with_unique_ids(reply, self.conversation.call_ids())
        progress.usage += reply.usage
        progress.step_usage = reply.usage
        self.last_input_tokens = reply.usage.input_tokens
        # Stored by the names the calls ran under: a name the runner repaired (`readFile`,
        # `functions.read_file`) could be refused by a strict provider when sent back.
        calls = tuple(self.runner.repaired(call) for call in reply.tool_calls)
        self.conversation.add_assistant(reply.text, calls)
        progress.replying.clear()
        names = tuple(call.name for call in reply.tool_calls)
        yield ModelReplied(progress.step, reply.text, names, reply.usage, reply.finish_reason)
        yield reply

    async def _streamed(
        self, model: Model, request: ModelRequest, progress: _Progress
    ) -> AsyncGenerator[AnyEvent | ModelReply, None]:
        """The model's stream as the turn's events; a history shortened to fit becomes the
        conversation, and counts as one of the turn's compactions."""
        async for item in model.stream(request):
            if isinstance(item, TextPiece):
                progress.replying.append(item.text)
                yield TextDelta(item.text)
            elif isinstance(item, Retrying):
                progress.replying.clear()  # the failed attempt's text is not the reply
                if item.resent_messages is not None:
                    progress.compactions += 1
                if item.resent_messages is not None and request.whole_history:
                    # Shortened to fit: the conversation is kept so (without the reminders).
                    end = len(item.resent_messages) - request.ephemeral
                    self.conversation.replace(item.resent_messages[:end])
                    records = tuple(self.conversation.records)
                    item = dataclasses.replace(item, resent_records=records)
                elif item.resent_messages is not None:  # a window or a hook's: not the history
                    item = dataclasses.replace(item, resent_messages=None)
                yield item
            elif isinstance(item, ReasoningDelta | ModelReply):  # reasoning is never the reply
                yield item

    def _budget_warning(self) -> BudgetWarning | None:
        return self.spending.take_warning() if self.spending is not None else None

    async def compact(self, instructions: str = "") -> Compacted:
        """`/compact`: the conversation so far becomes the model's summary of it (the
        recorders, the session file among them, see the Compacted event). ProviderError when
        the model fails: the conversation is then unchanged."""
        event = await self._compacted("user", instructions)
        for recorder in self.recorders:
            try:
                recorder.emit(event)
            except Exception:  # a recorder's failure must not lose the summary
                log.exception("recorder %s failed on the compaction", type(recorder).__name__)
        return event

    def _compaction_due(self) -> bool:
        window = getattr(self.model, "context_window", None)
        threshold = self.config.compact_threshold
        if not threshold or not isinstance(window, int) or window <= 0:
            return False
        if self.config.max_compactions < 1:  # the guard allows no automatic one
            return False
        return self.last_input_tokens > threshold * window and len(self.conversation) > 2

    async def _compacted(self, by: str, instructions: str = "") -> Compacted:
        """Summarise the history and make the summary the conversation (the call is admitted
        and counted by the run's spending, as every step's)."""
        model = self.model if self.spending is None else Metered(self.model, self.spending)
        summary = await summarise(model, self.conversation.messages, instructions)
        self.conversation.summarised(summary.messages)
        self.last_input_tokens = 0
        return Compacted(
            by, summary.text, summary.tokens_before, summary.tokens_after, tuple(summary.messages)
        )

    async def _calls(
        self, calls: tuple[ToolCall, ...], repeats: RepeatGuard, unknown: UnknownToolGuard
    ) -> AsyncGenerator[AnyEvent, None]:
        """Run a step's calls: consecutive reads side by side, any other call alone once the
        calls before it finished. The guards hold in call order: a call the loop guard stops
        never runs, nor any after it; the calls before it do."""
        batches: list[list[ParsedCall]] = []
        stop: StopTurn | None = None
        for call in calls:
            parsed = self.runner.parse(call)
            try:
                if parsed.tool is None or not parsed.tool.repeatable:  # job_output asks again
                    repeats.check(call.name, parsed.canonical())
            except StopTurn as exc:
                stop = exc
                break
            if batches and runs_alongside(parsed) and runs_alongside(batches[-1][-1]):
                batches[-1].append(parsed)
            else:
                batches.append([parsed])
        for batch in batches:
            if len(batch) == 1:
                running = self._run_call(batch[0])
            else:
                running = side_by_side(batch, self._call, self.conversation.add_tool_result)
            async with aclosing(running) as events:
                async for event in events:
                    yield event
            for parsed in batch:
                unknown.check(parsed.call, parsed.tool is not None)
        if stop is not None:
            raise stop

    async def _run_call(self, parsed: ParsedCall) -> AsyncGenerator[AnyEvent, None]:
        async with aclosing(self._call(parsed)) as items:
            async for item in items:
                if isinstance(item, CallDone):
                    self.conversation.add_tool_result(item.message)
                    yield item.event
                else:
                    yield item

    async def _call(self, parsed: ParsedCall) -> AsyncGenerator[AnyEvent | CallDone, None]:
        """One call's events, then how it ended (its result is the caller's to record)."""
        call = parsed.call
        yield ToolCallStarted(call.id, call.name, call.arguments, parsed.label)
        started = time.monotonic()
        result = ToolResult.error("the tool produced no result")
        async with aclosing(self.runner.run(parsed)) as running:
            async for item in running:
                if isinstance(item, ToolResult):
                    result = item
                else:
                    yield item
        duration = (
            result.duration_s if result.duration_s is not None else time.monotonic() - started
        )
        yield call_done(call.id, call.name, result, duration)


def call_done(call_id: str, name: str, result: ToolResult, duration_s: float) -> CallDone:
    """How a call ended: its result as the conversation keeps it, and the event telling it."""
    message = ToolMessage(
        tool_call_id=call_id,
        content=model_text(result),
        ok=result.ok,
        name=name,
        diff=result.diff,
        replaced=result.replaced,
        images=result.images,
    )
    finished = ToolCallFinished(call_id, name, result.ok, result.output, duration_s, result.diff)
    return CallDone(message, finished)


def _with_unique_ids(reply: ModelReply, taken: set[str]) -> ModelReply:
    """`reply` with every tool call's id distinct from each other and from the conversation's
    (`taken`): some local servers send one id twice, or the same ids at every step, and each
    result must answer exactly one call."""
    seen = set(taken)
    calls: list[ToolCall] = []
    for index, call in enumerate(reply.tool_calls):
        call_id = call.id or f"call_{index}"
        while call_id in seen:
            call_id = f"{call_id}_{index}"
        seen.add(call_id)
        calls.append(call if call_id == call.id else dataclasses.replace(call, id=call_id))
    return dataclasses.replace(reply, tool_calls=tuple(calls))


def _reminders(reminders: tuple[tuple[str, str], ...]) -> str:
    """This request's reminders, as one user message that is never stored."""
    return "\n".join(
        f'<reminder source="{source}">\n{text.strip()}\n</reminder>' for source, text in reminders
    )


def _last_text(conversation: Conversation) -> str:
    for record in reversed(conversation.records):
        if isinstance(record, AssistantMessage) and record.content:
            return record.content
    return ""


__all__ = ["Agent", "AgentConfig", "PromptSource"]
