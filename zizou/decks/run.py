"""A deck's run: a sub-agent on the core loop, with its own conversation, bounded and traced.

`DeckEnv` is what every deck run of a session shares: the project's decks, the parent's tool
context, approver, rules and hooks' policy (a child asks as the main agent would), the model
resolution, the per-turn budget of deck model calls, and where traces go. `DeckEnv.call` runs
one action:

1. guardrails first: a call that would run deeper than the deck's `guardrails.depth` is
   refused before any request, as is an input its schema refuses;
2. the child: the deck's body and a short DECK CONTEXT as its system prompt, the deck's tools,
   its actions (decks again, one level deeper), `return_output` (an object output) and
   `fail`; at most `passes` model calls; turn 0 holds an assistant call to
   `zizou_reference_context` and its result (the run's ids, the validated input, the action),
   then the input as the user's message;
3. the whole action, its children included, within `timeout_s` of wall time: past it the run
   is cancelled (its commands' process groups are killed by the tools' own cancellation);
4. every step traced (`.zizou/traces/<runId>.jsonl`, no transcript text) and every event
   passed up as `Nested` for live display.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zizou.core.calls import CallRunner
from zizou.core.conversation import Conversation
from zizou.core.events import (
    AnyEvent,
    Nested,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    Usage,
)
from zizou.core.loop import Agent, AgentConfig
from zizou.core.messages import ToolMessage
from zizou.core.permissions import Rules
from zizou.core.prompt import CompiledPrompt, Section
from zizou.core.protocols import (
    Approver,
    ChangeRecorder,
    Model,
    ModelEvent,
    ModelReply,
    ModelRequest,
    ToolCall,
    ToolPolicy,
)
from zizou.core.schema_ts import TaskSchema
from zizou.core.state import SessionState
from zizou.core.task_state import TaskState
from zizou.decks.spec import Deck, DeckSet
from zizou.decks.tools import (
    ActionInfo,
    Caller,
    Fail,
    Outcome,
    RunBox,
    action_of,
    call_deck_tool,
    deck_tool,
    return_output_tool,
    schema_problems,
)
from zizou.decks.trace import Trace, new_run_id, prune_traces
from zizou.errors import ProviderError, ZizouError
from zizou.tools import Registry, Tool, ToolContext, default_registry

REFERENCE_TOOL = "zizou_reference_context"
REFERENCE_MAX_CHARS = 8 * 1024
TURN_CAP = 100  # deck model calls per turn of the main agent
NUDGE = (
    "Finish now: call return_output with your output (its parameters are the output schema), "
    "or fail(message) if you cannot produce it."
)

ModelSource = Callable[[str], Model]  # a model by its id (the session's own provider set-up)


@dataclass
class Budget:
    """The deck model calls one turn of the main agent may make, all runs together."""

    cap: int = TURN_CAP
    used: int = 0
    usage: Usage = field(default_factory=Usage)  # what the calls cost, all runs together

    def take(self) -> None:
        if self.used >= self.cap:
            raise BudgetSpent(
                f"the decks made {self.used} model calls in this turn, the cap per turn"
            )
        self.used += 1

    @property
    def spent(self) -> bool:
        return self.used >= self.cap


class BudgetSpent(ProviderError):
    """No deck model call is left in this turn."""


@dataclass
class Models:
    """Which model a deck runs on: `--model-force`, else the deck's `model`, else the
    session's (`--model`, or the configured one); each id opened once."""

    session: Callable[[], Model]
    source: ModelSource | None = None
    force: str | None = None
    _opened: dict[str, Model] = field(default_factory=dict)

    def for_deck(self, deck: Deck) -> Model:
        wanted = self.force or deck.model
        current = self.session()
        if wanted is None or wanted == current.id:
            return current
        if wanted not in self._opened:
            if self.source is None:
                raise ZizouError(
                    f"the deck {deck.name} asks for the model {wanted}, which cannot be opened here"
                )
            self._opened[wanted] = self.source(wanted)
        return self._opened[wanted]


@dataclass
class DeckEnv:
    """What every deck run of a session shares (see the module's docstring)."""

    root: Path
    decks: DeckSet
    ctx: ToolContext  # the parent's: its environment, sandbox, repo map and instructions
    approver: Approver
    rules: Callable[[], Rules]  # the main runner's rules as they are now ("always" included)
    models: Models
    changes: ChangeRecorder | None = None  # checkpoints: a deck's edits are undone like any
    policy: Callable[[], ToolPolicy | None] = lambda: None
    read_only: Callable[[], str | None] | None = None  # plan mode holds in a deck's run too
    budget: Budget = field(default_factory=Budget)
    sink: Callable[[dict[str, Any]], None] | None = None  # trace events as they happen
    redact: Callable[[str], str] | None = None
    persist_traces: bool = True
    nested_requests: Callable[[tuple[str, ...], int, ModelRequest], None] | None = None
    traces: dict[str, Trace] = field(default_factory=dict)  # the runs going on, by id
    pruned: bool = False

    # The main agent's turns: the budget is per turn.

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.budget = Budget(self.budget.cap)

    def record_request(self, step: int, request: ModelRequest) -> None:
        pass

    def emit(self, event: AnyEvent) -> None:
        pass

    def shown(self, path: Path) -> str:
        """A deck file as the trace names it: relative to the project when inside it."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    # Running a deck.

    async def call(
        self,
        deck: Deck,
        action: ActionInfo,
        value: Any,
        caller: Caller,
        nest: Callable[[Nested], None] | None,
    ) -> Outcome:
        """Run `deck` as the action `action` of `caller` on `value` (its validated input)."""
        depth = caller.depth + 1
        started = time.monotonic()
        outcome = Outcome(False, code="runtime", message="the run failed")  # until it ends
        run_id = caller.run_id or new_run_id()
        trace = self.traces.get(run_id)
        opened_here = trace is None
        if trace is None:
            if not self.pruned:  # the oldest traces beyond the last 200 go, once a session
                self.pruned = True
                await asyncio.to_thread(prune_traces, self.root)
            trace = Trace(
                self.root, run_id, sink=self.sink, redact=self.redact, persist=self.persist_traces
            )
            self.traces[run_id] = trace
            trace.event("run.start", deckPath=self.shown(deck.path), actionName=action.name)
        ids = {
            "actionCallId": "a" + secrets.token_hex(4),
            "parentActionCallId": caller.action_call_id,
            "deckPath": self.shown(deck.path),
            "actionName": action.name,
            "activity": action.activity or action.name,
        }
        trace.event("action.start", depth=depth, **ids)
        try:
            outcome = await self._guarded(deck, action, value, caller, nest, trace, ids)
        except asyncio.CancelledError:  # the caller's turn was stopped: the trace says so
            outcome = Outcome(False, code="cancelled", message="the run was cancelled")
            raise
        finally:
            elapsed = round((time.monotonic() - started) * 1000)
            end: dict[str, Any] = {"ok": outcome.ok, "elapsedMs": elapsed}
            if not outcome.ok:
                end["error"] = _error(outcome)
            trace.event("action.end", **ids, **end)
            if opened_here:
                self.traces.pop(run_id, None)
                trace.event("run.end", deckPath=self.shown(deck.path), **end)
                trace.close()
        return outcome

    async def _guarded(
        self,
        deck: Deck,
        action: ActionInfo,
        value: Any,
        caller: Caller,
        nest: Callable[[Nested], None] | None,
        trace: Trace,
        ids: dict[str, Any],
    ) -> Outcome:
        """The action within its guardrails: depth and input checked before any request,
        then the run within its timeout."""
        depth = caller.depth + 1
        limit = deck.guardrails.depth
        if depth > limit:
            return Outcome(
                False,
                code="guardrail_depth",
                message=f"{deck.name} would run at depth {depth}, deeper than its limit of "
                f"{limit} (guardrails.depth); it was not started",
            )
        schema = deck.input_schema or {"type": "string"}
        problems = schema_problems(schema, value)
        if problems:
            return Outcome(False, code="invalid_input", message="; ".join(problems))
        timeout = deck.guardrails.timeout_s
        try:
            async with asyncio.timeout(timeout):
                return await self._run(deck, action, value, caller, nest, trace, ids)
        except TimeoutError:
            return Outcome(
                False,
                code="timeout",
                message=f"{deck.name} did not finish within {timeout:g} s "
                "(guardrails.timeout_s); it was stopped",
            )

    async def _run(
        self,
        deck: Deck,
        action: ActionInfo,
        value: Any,
        caller: Caller,
        nest: Callable[[Nested], None] | None,
        trace: Trace,
        ids: dict[str, Any],
    ) -> Outcome:
        depth = caller.depth + 1
        chain = (*caller.chain, deck.name)
        try:
            model = self.models.for_deck(deck)
        except ZizouError as exc:
            return Outcome(False, code="model", message=str(exc))
        box = RunBox()
        child = Caller(depth, chain, trace.run_id, ids["actionCallId"], caller.state)
        agent = self._agent(deck, model, box, child, trace, ids, nest)
        reference = {
            "runId": trace.run_id,
            "actionCallId": ids["actionCallId"],
            "parentActionCallId": ids["parentActionCallId"],
            "input": value,
            "action": {
                "name": action.name,
                "path": action.path,
                "activity": ids["activity"],
                "description": action.description,
            },
        }
        _turn_zero(agent.conversation, reference)
        trace.event("reference_context", actionCallId=ids["actionCallId"], chars=len(str(value)))
        trace.event("deck.start", depth=depth, model=model.id, **ids)
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        outcome = await self._turns(deck, agent, box, text)
        trace.event("deck.end", ok=outcome.ok, **ids)
        return outcome

    def _agent(
        self,
        deck: Deck,
        model: Model,
        box: RunBox,
        child: Caller,
        trace: Trace,
        ids: dict[str, Any],
        nest: Callable[[Nested], None] | None,
    ) -> Agent:
        """The child's agent: its own state and conversation, the deck's tools and actions,
        the parent's approver, rules and policy."""
        state = SessionState(Conversation())
        state.task = child.state or _task_state(deck)
        registry = Registry()
        for tool in default_registry():
            if tool.name in deck.tools:
                registry.register(tool)
        for action in deck.actions:
            target = self.decks.by_path(action.target)
            if target is not None:
                info = ActionInfo(action.name, action.description, action.activity, action.path)
                registry.register(deck_tool(target, info, self.call, child))
        if not deck.output_is_string:
            registry.register(return_output_tool(deck, box))
        registry.register(Fail(box))
        ctx = dataclasses.replace(self.ctx, state=state, emit=None, nest=None)
        runner = CallRunner(registry, ctx, self.approver, self.rules())
        runner.changes = self.changes
        runner.policy = self.policy()
        runner.read_only = self.read_only
        prompt = DeckPrompt(deck, child, self.root, state)
        counted = CountedModel(model, self.budget, trace, ids["actionCallId"])
        config = AgentConfig(max_steps=deck.guardrails.passes)
        recorder = Forward(child.chain, nest, trace, ids["actionCallId"], self.nested_requests)
        agent = Agent(counted, runner, prompt, state.conversation, config, [recorder])
        agent.finished = lambda: box.done
        return agent

    async def _turns(self, deck: Deck, agent: Agent, box: RunBox, text: str) -> Outcome:
        """The child's turns until it returns, fails or spends its passes: an object output
        not returned when the model stops gets one more turn that asks for it, while passes
        remain."""
        passes = deck.guardrails.passes
        used = 0
        message = text
        while True:
            finished = await _last(agent.run_turn(message))
            used += finished.steps
            if box.failure is not None:
                code, why = box.failure
                return Outcome(False, code=code, message=why)
            if box.returned:
                return Outcome(True, box.output)
            if finished.reason == "done" and deck.output_is_string:
                return Outcome(True, finished.text)
            if finished.reason == "error":
                code = "guardrail_budget" if self.budget.spent else "provider"
                return Outcome(False, code=code, message=finished.message or "the run failed")
            if finished.reason not in ("done", "max_steps") or used >= passes:
                break
            agent.config = agent.config.model_copy(update={"max_steps": passes - used})
            message = NUDGE
        if finished.reason == "loop_guard":
            return Outcome(False, code="loop_guard", message=finished.message or "")
        return Outcome(
            False,
            code="guardrail_passes",
            message=f"{deck.name} did not return its output within its {passes} model calls "
            "(guardrails.passes)",
        )


MAX_DECK_TOOLS = 20  # beyond this, the main agent gets one `call_deck` with a catalogue


def main_tools(env: DeckEnv) -> list[Tool[Any]]:
    """The decks as tools of the main agent: one tool each (those that declare both schemas),
    or `call_deck` with their list when there are more than MAX_DECK_TOOLS."""
    decks = env.decks.tools()
    if len(decks) > MAX_DECK_TOOLS:
        return [call_deck_tool(decks, env.call, Caller())]
    return [deck_tool(deck, action_of(deck), env.call, Caller()) for deck in decks]


def _task_state(deck: Deck) -> TaskState | None:
    """A fresh task state for a deck that declares one (`state:`, `state.schema.json`)."""
    if deck.state_schema is None:
        return None
    return TaskState(TaskSchema(deck.state_schema, str(deck.path)))


def _turn_zero(conversation: Conversation, reference: dict[str, Any]) -> None:
    """The child's turn 0: a call to `zizou_reference_context` and its result."""
    content = json.dumps(reference, ensure_ascii=False)
    if len(content) > REFERENCE_MAX_CHARS:  # the input itself follows, whole, as the message
        reference = {**reference, "input": "(too long for the reference: see the message)"}
        content = json.dumps(reference, ensure_ascii=False)
    call = ToolCall("zizou_ref_0", REFERENCE_TOOL, "{}")
    conversation.add_assistant("", (call,))
    conversation.add_tool_result(
        ToolMessage(tool_call_id=call.id, content=content, ok=True, name=REFERENCE_TOOL)
    )


async def _last(events: AsyncIterator[AnyEvent]) -> TurnFinished:
    """Run a turn to its end (its events go to the recorders), and how it ended."""
    finished: TurnFinished | None = None
    async with aclosing(events) as running:  # type: ignore[type-var]
        async for event in running:
            if isinstance(event, TurnFinished):
                finished = event
    assert finished is not None
    return finished


def _error(outcome: Outcome) -> dict[str, Any]:
    error: dict[str, Any] = {"code": outcome.code, "message": outcome.message}
    if outcome.details:
        error["details"] = outcome.details
    return error


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
    """The child's model: each call taken from the turn's budget and traced (sizes, not text)."""

    def __init__(self, model: Model, budget: Budget, trace: Trace, action_call_id: str) -> None:
        self.inner = model
        self.id = model.id
        self.context_window = getattr(model, "context_window", None)
        self.budget = budget
        self.trace = trace
        self.action_call_id = action_call_id

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.budget.take()
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
                self.budget.usage += item.usage
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


class Forward:
    """The child's recorder: its events go up as `Nested` (not its text as it streams: the
    reply's size is enough to watch), its tool calls into the trace, its requests into the
    parent's debug log."""

    def __init__(
        self,
        chain: tuple[str, ...],
        nest: Callable[[Nested], None] | None,
        trace: Trace,
        action_call_id: str,
        requests: Callable[[tuple[str, ...], int, ModelRequest], None] | None,
    ) -> None:
        self.chain = chain
        self.nest = nest
        self.trace = trace
        self.action_call_id = action_call_id
        self.requests = requests

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        pass

    def record_request(self, step: int, request: ModelRequest) -> None:
        if self.requests is not None:
            self.requests(self.chain, step, request)

    def emit(self, event: AnyEvent) -> None:
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
        if self.nest is None or isinstance(event, TextDelta):
            return
        if not isinstance(event, Nested):  # a grandchild's comes with its whole chain
            event = Nested("", self.chain, event)
        self.nest(event)


__all__ = [
    "REFERENCE_TOOL",
    "TURN_CAP",
    "Budget",
    "BudgetSpent",
    "CountedModel",
    "DeckEnv",
    "DeckPrompt",
    "Models",
    "main_tools",
]
