"""A deck's run: a sub-agent on the core loop, with its own conversation, bounded and traced.

`DeckEnv` is what every deck run of a session shares: the project's decks, the parent's tool
context, approver, rules and hooks' policy (a child asks as the main agent would), the model
resolution, the turn's tally of deck model calls, the run's spending (whose caps hold in every
child: core/spending.py), and where traces go. `DeckEnv.call` runs
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
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.spending import Metered, Spending
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import (
    AnyEvent,
    Nested,
)
from zizou.contracts.protocols import (
    Model,
    ModelRequest,
)
from zizou.contracts.state import SessionState
from zizou.decks.child import (
    ActionRun,
    CountedModel,
    DeckCalls,
    DeckPrompt,
    Ended,
    Forward,
    NestedLog,
    last_event,
    task_state_for,
    turn_zero,
)
from zizou.decks.compute import run_compute
from zizou.decks.handlers import handle_error, inject, watch_suspense
from zizou.decks.spec import STRING_SCHEMA, Deck, DeckSet
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
from zizou.decks.toolset import deck_registry
from zizou.decks.trace import new_run_id
from zizou.decks.tracing import DeckTracing
from zizou.errors import ZizouError
from zizou.tools import Tool, ToolContext, ToolSource

NUDGE = (
    "Finish now: call return_output with your output (its parameters are the output schema), "
    "or fail(message) if you cannot produce it."
)

ModelSource = Callable[[str], Model]  # a model by its id (the session's own provider set-up)


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


MAX_KEPT_RUNS = 50  # the latest deck runs whose conversations the app can show


@dataclass
class RunRecord:
    """A deck run the app can show: which deck, under which chain, its conversation (live while
    it runs), and how it ended (None: running)."""

    action_call_id: str
    chain: tuple[str, ...]
    conversation: Conversation
    outcome: Outcome | None = None


@dataclass(frozen=True)
class DeckParent:
    """What the session lends its decks' runs, each run's derived from it: the tool context
    (environment, sandbox, repo map, instructions), the main runner's gates (core/gates.py: its
    approver and rule book, so "always" said anywhere holds everywhere; hooks' policy, plan mode,
    the checkpoints, the checks), the model resolution, the run's spending (its caps and its
    per-turn call cap) and the MCP servers' tools a deck may list."""

    ctx: ToolContext
    gates: CallGates
    models: Models
    spending: Spending | None = None
    extra_tools: ToolSource | None = None


@dataclass
class DeckEnv:
    """What every deck run of a session shares (see the module's docstring)."""

    decks: DeckSet
    parent: DeckParent
    tracing: DeckTracing
    deck_calls: DeckCalls = field(default_factory=DeckCalls)  # this turn's
    runs: dict[str, RunRecord] = field(default_factory=dict)  # the latest, by actionCallId

    # The parent's parts, as the runs read them.

    @property
    def root(self) -> Path:
        return self.parent.ctx.root

    @property
    def ctx(self) -> ToolContext:
        return self.parent.ctx

    @property
    def gates(self) -> CallGates:
        return self.parent.gates

    @property
    def models(self) -> Models:
        return self.parent.models

    @property
    def spending(self) -> Spending | None:
        return self.parent.spending

    @property
    def extra_tools(self) -> ToolSource | None:
        return self.parent.extra_tools

    @property
    def debug_log(self) -> NestedLog | None:
        return self.tracing.debug_log

    @contextmanager
    def kept_from_undo(self) -> Iterator[None]:
        """Within it, the runs' edits are not kept for undo: a `/run` is no turn of the
        conversation (rather than kept under the turn before, which /undo would revert)."""
        parent = self.parent
        self.parent = dataclasses.replace(
            parent, gates=dataclasses.replace(parent.gates, changes=None)
        )
        try:
            yield
        finally:
            self.parent = parent

    # The main agent's turns: the tally, and the cap on model calls, are per turn.

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.deck_calls = DeckCalls()
        if self.spending is not None:
            self.spending.begin_turn(user_text, history)

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
        trace, opened_here = await self.tracing.trace_for(caller.run_id or new_run_id())
        if opened_here:
            trace.event("run.start", deckPath=self.shown(deck.path), actionName=action.name)
        action_call_id = "a" + secrets.token_hex(4)
        activity = action.activity or action.name
        ids = {
            "actionCallId": action_call_id,
            "parentActionCallId": caller.action_call_id,
            "deckPath": self.shown(deck.path),
            "actionName": action.name,
            "activity": activity,
        }
        trace.event("action.start", depth=depth, **ids)
        run = ActionRun(deck, action, value, caller, nest, trace, ids)
        suspense = watch_suspense(self, run)
        try:
            outcome = await self._guarded(run)
            if suspense is not None:  # the action ended first: no suspense from here on
                suspense.cancel()
                await asyncio.gather(suspense, return_exceptions=True)
            if not outcome.ok:
                outcome = await handle_error(self, run, outcome)
        except asyncio.CancelledError:  # the caller's turn was stopped: the trace says so
            outcome = Outcome(False, code="cancelled", message="the run was cancelled")
            if suspense is not None:
                suspense.cancel()
            raise
        finally:
            elapsed = round((time.monotonic() - started) * 1000)
            end: dict[str, Any] = {"ok": outcome.ok, "elapsedMs": elapsed}
            if not outcome.ok:
                end["error"] = _error(outcome)
            trace.event("action.end", **ids, **end)
            if opened_here:
                trace.event("run.end", deckPath=self.shown(deck.path), **end)
                self.tracing.closed(trace)
        return outcome

    async def _guarded(self, run: ActionRun) -> Outcome:
        """The action within its guardrails: depth and input checked before any request,
        then the run within its timeout."""
        deck, depth = run.deck, run.depth
        limit = deck.guardrails.depth
        if depth > limit:
            return Outcome(
                False,
                code="guardrail_depth",
                message=f"{deck.name} would run at depth {depth}, deeper than its limit of "
                f"{limit} (guardrails.depth); it was not started",
            )
        schema = deck.input_schema or {"type": "string"}
        problems = schema_problems(schema, run.value)
        if problems:
            return _invalid("invalid_input", problems)
        timeout = deck.guardrails.timeout_s
        try:
            async with asyncio.timeout(timeout):
                return await self._run(run)
        except TimeoutError:
            return Outcome(
                False,
                code="timeout",
                message=f"{deck.name} did not finish within {timeout:g} s "
                "(guardrails.timeout_s); it was stopped",
            )

    async def _run(self, run: ActionRun) -> Outcome:
        deck, caller, trace, ids = run.deck, run.caller, run.trace, run.ids
        chain = (*caller.chain, deck.name)
        lineage = (*caller.lineage, deck)
        if deck.mode == "compute":  # its code, in a worker process: no model of its own
            child = Caller(run.depth, chain, trace.run_id, run.action_call_id, lineage=lineage)
            return await run_compute(self, deck, run.value, child, run.nest, trace, ids)
        try:
            model = self.models.for_deck(deck)
        except ZizouError as exc:
            return Outcome(False, code="model", message=str(exc))
        box = RunBox()
        pending: list[tuple[str, dict[str, Any]]] = []  # events for this run's conversation
        child = Caller(
            run.depth,
            chain,
            trace.run_id,
            run.action_call_id,
            lineage=lineage,
            inject=_adder(pending),
        )
        conversation = Conversation()

        def step_done() -> bool:
            """After each step's tool calls: the handlers' events go in, then has it ended?"""
            while pending:
                inject(conversation, *pending.pop(0))
            return box.done

        agent = self._agent(run, model, box, child, conversation, step_done)
        reference = {
            "runId": trace.run_id,
            "actionCallId": ids["actionCallId"],
            "parentActionCallId": ids["parentActionCallId"],
            "input": run.value,
            "action": {
                "name": run.action.name,
                "path": run.action.path,
                "activity": run.activity,
                "description": run.action.description,
            },
        }
        turn_zero(agent.conversation, reference)
        record = RunRecord(ids["actionCallId"], chain, agent.conversation)
        self.runs[record.action_call_id] = record
        while len(self.runs) > MAX_KEPT_RUNS:
            self.runs.pop(next(iter(self.runs)))
        chars = len(str(run.value))
        trace.event("reference_context", actionCallId=run.action_call_id, chars=chars)
        trace.event("deck.start", depth=run.depth, model=model.id, **ids)
        value = run.value
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        ok = False
        try:
            outcome = await self._turns(deck, agent, box, text)
            record.outcome, ok = outcome, outcome.ok
        finally:  # stopped (its timeout, Esc) too: the trace stays balanced
            trace.event("deck.end", ok=ok, **ids)
        return outcome

    def _agent(
        self,
        run: ActionRun,
        model: Model,
        box: RunBox,
        child: Caller,
        conversation: Conversation,
        finished: Callable[[], bool],
    ) -> Agent:
        """The child's agent: its own state and conversation (and task state: the caller's
        `--state`, or the deck's own), the deck's tools and actions, every gate of the
        parent's (`CallGates.for_child`), the run's spending."""
        deck = run.deck
        state = SessionState(conversation)
        state.task = run.caller.state or task_state_for(deck)
        registry = deck_registry(deck, self.extra_tools)
        for action in deck.actions:
            target = self.decks.by_path(action.target)
            if target is not None:
                info = ActionInfo(action.name, action.description, action.activity, action.path)
                registry.register(deck_tool(target, info, self.call, child))
        if not deck.output_is_string:
            registry.register(return_output_tool(deck, box))
        registry.register(Fail(box))
        ctx = dataclasses.replace(self.ctx, state=state, emit=None, nest=None)
        gates = self.gates.for_child(child.chain, partial(Ended, box))
        runner = CallRunner(registry, ctx, gates)
        prompt = DeckPrompt(deck, child, self.root, state)
        counted: Model = CountedModel(model, self.deck_calls, run.trace, run.action_call_id)
        if self.spending is not None:  # the run's caps hold in every child
            counted = Metered(counted, self.spending)
        config = AgentConfig(max_steps=deck.guardrails.passes)
        recorder = Forward(child.chain, run.nest, run.trace, run.action_call_id, self.debug_log)
        return Agent(
            counted,
            runner,
            prompt,
            conversation,
            config,
            [recorder],
            spending=None,  # the model is metered: the cap holds without the agent's tally
            finished=finished,
        )

    async def _turns(self, deck: Deck, agent: Agent, box: RunBox, text: str) -> Outcome:
        """The child's turns until it returns, fails or spends its passes: an object output
        not returned when the model stops gets one more turn that asks for it, while passes
        remain."""
        passes = deck.guardrails.passes
        used = 0
        message = text
        while True:
            finished = await last_event(agent.run_turn(message))
            used += finished.steps
            if box.failure is not None:
                code, why = box.failure
                return Outcome(False, code=code, message=why)
            if box.returned:
                return Outcome(True, box.output)
            problems: list[str] = []
            if finished.reason == "done" and deck.output_is_string:
                problems = schema_problems(deck.output_schema or STRING_SCHEMA, finished.text)
                if not problems:
                    return Outcome(True, finished.text)
            if finished.reason == "error":
                code = "runtime" if finished.error_kind == "runtime" else "provider"
                return Outcome(False, code=code, message=finished.message or "the run failed")
            if finished.reason == "budget":
                return Outcome(False, code="budget", message=finished.message or "")
            if finished.reason not in ("done", "max_steps") or used >= passes:
                if problems:
                    return _invalid("invalid_output", problems)
                break
            agent.limit_steps(passes - used)
            message = NUDGE if not problems else _text_nudge(problems)
        if finished.reason == "loop_guard":
            spent = self.spending is not None and self.spending.calls_spent
            code = "guardrail_budget" if spent else "loop_guard"
            return Outcome(False, code=code, message=finished.message or "")
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
        return [call_deck_tool(decks, env.call, Caller(), env.gates.read_only)]
    return [deck_tool(deck, action_of(deck), env.call, Caller()) for deck in decks]


def _text_nudge(problems: list[str]) -> str:
    return (
        "Your answer does not fit this deck's output schema: "
        + "; ".join(problems)
        + ". Answer again with text that fits it, or fail(message) if you cannot."
    )


def _invalid(code: str, problems: list[str]) -> Outcome:
    """An input or output the schema refuses: the fields, for the trace (which holds no
    values), and the whole messages for the model."""
    fields = sorted({problem.split(":", 1)[0] for problem in problems})
    return Outcome(False, code=code, message="; ".join(problems), details={"fields": fields})


def _adder(pending: list[tuple[str, dict[str, Any]]]) -> Callable[[str, dict[str, Any]], None]:
    def add(name: str, payload: dict[str, Any]) -> None:
        pending.append((name, payload))

    return add


def _error(outcome: Outcome) -> dict[str, Any]:
    """An outcome's error as the trace keeps it: a schema's refusal by its fields alone (its
    messages quote the values, and the trace holds none)."""
    message = outcome.message
    if outcome.code in ("invalid_input", "invalid_output"):
        message = f"does not fit the schema at: {', '.join(outcome.details.get('fields', []))}"
    error: dict[str, Any] = {"code": outcome.code, "message": message}
    if outcome.details:
        error["details"] = outcome.details
    return error


__all__ = [
    "DeckEnv",
    "Models",
    "RunRecord",
    "main_tools",
]
