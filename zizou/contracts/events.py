"""Typed, frozen events the loop yields. Front ends only render these, one handler per type."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

FinishReason = Literal["done", "max_steps", "loop_guard", "budget", "cancelled", "error"]


@dataclass(frozen=True)
class Usage:
    """Tokens and cost of one or more model calls. `cache_read_tokens` and `cache_write_tokens`
    are the prompt tokens the provider served from, or wrote to, its prompt cache (counted in
    `input_tokens` too, as providers report them)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            cost,
            self.cache_read_tokens + other.cache_read_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )


@dataclass(frozen=True)
class Event:
    type: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **dataclasses.asdict(self)}


@dataclass(frozen=True)
class TurnStarted(Event):
    type: ClassVar[str] = "turn_started"
    user_text: str


@dataclass(frozen=True)
class StepStarted(Event):
    type: ClassVar[str] = "step_started"
    step: int


@dataclass(frozen=True)
class StepPlanned(Event):
    """How this step's request was assembled, before it is sent: the tools offered and those
    hidden (with why), what step effects ran and reminded, how many earlier turns were left out
    of the history, and the workspace's windows as shown."""

    type: ClassVar[str] = "step_planned"
    step: int
    offered: tuple[str, ...]
    hidden: tuple[tuple[str, str], ...] = ()  # (tool, why)
    effects_run: tuple[str, ...] = ()
    reminders: tuple[str, ...] = ()  # the sources of this request's reminders
    left_out_turns: int = 0
    windows: tuple[str, ...] = ()  # one line per open window: path, id, lines, state


@dataclass(frozen=True)
class TextDelta(Event):
    type: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class ReasoningDelta(Event):
    """A piece of the model's reasoning as it streams, where the provider sends it (a
    `reasoning_content` delta): shown apart from the answer, never part of the reply's text
    nor of the history sent back to the model."""

    type: ClassVar[str] = "reasoning_delta"
    text: str


@dataclass(frozen=True)
class ToolCallStarted(Event):
    type: ClassVar[str] = "tool_call_started"
    call_id: str
    name: str
    arguments: str  # the raw JSON text the model sent
    label: str = ""  # the call in a person's words: its path, command or pattern


@dataclass(frozen=True)
class ToolProgress(Event):
    """A running tool's word on how far it is (a command's latest output line, a count)."""

    type: ClassVar[str] = "tool_progress"
    call_id: str
    name: str
    text: str


@dataclass(frozen=True)
class PermissionRequested(Event):
    type: ClassVar[str] = "permission_requested"
    call_id: str
    tool: str
    summary: str  # what is asked: the command, or the path
    detail: str | None = None  # the timeout of a command, the content of a write
    suggested_rules: tuple[str, ...] = ()  # what "always allow" would save
    protected: bool = False


@dataclass(frozen=True)
class PermissionDecided(Event):
    """What decided whether a call runs, for every call that asked, that a rule or `--yes` let
    through, or that the policy refused (a call the policy simply allows, such as a read inside
    the project, has none): `by` is "policy" (a refusal), "--yes", "--allow" or "saved rule"
    (or "--allow and saved rule", with `rules` naming which), "user" (the person's answer), or
    "headless" (nobody could be asked)."""

    type: ClassVar[str] = "permission_decided"
    call_id: str
    tool: str
    verdict: Literal["allow", "deny"]
    by: str
    reason: str
    rules: tuple[str, ...] = ()  # the rules that approved it, or that "always" saved
    sandbox: str | None = None  # for commands: "on", "off" or "missing"


@dataclass(frozen=True)
class ToolCallFinished(Event):
    type: ClassVar[str] = "tool_call_finished"
    call_id: str
    name: str
    ok: bool
    output: str
    duration_s: float
    diff: str | None = None


@dataclass(frozen=True)
class Retrying(Event):
    """The model call failed in a way worth another try, and another attempt follows.

    Text of the current step streamed before this event came from the failed attempt: front
    ends discard it (the next attempt streams the reply afresh). No tool call of a failed
    attempt is ever run. `attempt` is the number of the attempt about to start (2 for the first
    retry), `delay_s` the wait before it, and `reason` a sentence ready to show the user that
    names the cause, the wait and the count ("rate limited by openai, retrying in 12 s
    (attempt 2 of 5)").
    """

    type: ClassVar[str] = "retrying"
    attempt: int
    delay_s: float
    reason: str
    # After a context overflow: the shortened history the next attempt sends (the debug log
    # records it; it is left out of `to_dict`, which goes to stream-json).
    resent_messages: tuple[dict[str, Any], ...] | None = field(default=None, repr=False)
    # The same history as the conversation's typed records (what each tool result's outcome
    # was), set by the loop once the conversation took it: the session file keeps these.
    resent_records: tuple[Any, ...] | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "attempt": self.attempt,
            "delay_s": self.delay_s,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class ModelReplied(Event):
    """The model's whole reply for a step, before any of its tool calls run."""

    type: ClassVar[str] = "model_replied"
    step: int
    text: str
    tool_calls: tuple[str, ...] = ()  # the names of the calls it asked for, in order
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


@dataclass(frozen=True)
class StepFinished(Event):
    """The step is over: the model replied and every tool call it asked for has finished."""

    type: ClassVar[str] = "step_finished"
    step: int
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


@dataclass(frozen=True)
class AgentError(Event):
    """Something failed. `detail` holds a traceback when the failure was a bug in zizou: the
    debug log keeps it, front ends show `message`."""

    type: ClassVar[str] = "error"
    message: str
    fatal: bool = True
    detail: str | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:  # stream-json: the traceback stays in the debug log
        return {"type": self.type, "message": self.message, "fatal": self.fatal}


@dataclass(frozen=True)
class HookWarning(Event):
    """A hook failed or misbehaved (it raised, was slow, asked for something it may not): it
    is disabled where it raised, and the turn goes on. `detail` holds the traceback, for the
    debug log only."""

    type: ClassVar[str] = "hook_warning"
    hook: str  # "hook:<file>" or "hook:<file>/<effect>"
    message: str
    detail: str | None = field(default=None, repr=False)

    def to_dict(self) -> dict[str, Any]:  # stream-json: the traceback stays in the debug log
        return {"type": self.type, "hook": self.hook, "message": self.message}


@dataclass(frozen=True)
class Compacted(Event):
    """The conversation so far was replaced by the model's summary of it: asked for (`by`
    "user", `/compact`) or started because the last request neared the context window ("auto").
    `messages` is the new history, for the session file."""

    type: ClassVar[str] = "compacted"
    by: str
    summary: str
    tokens_before: int  # the history's estimated tokens, before and after
    tokens_after: int
    messages: tuple[dict[str, Any], ...] = field(default=(), repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "by": self.by,
            "summary": self.summary,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
        }


@dataclass(frozen=True)
class ChecksReported(Event):
    """The model ended its turn, and the checks the user configured found new problems in the
    files it changed: `text` goes to the model (as a message from zizou), and the turn goes on."""

    type: ClassVar[str] = "checks_reported"
    text: str


@dataclass(frozen=True)
class BudgetWarning(Event):
    """The run has used 80% of a spending cap (`--max-budget-usd`, `--max-tokens`): said once
    per cap, and again after the cap is raised."""

    type: ClassVar[str] = "budget_warning"
    message: str
    spent_usd: float
    max_usd: float | None
    tokens: int
    max_tokens: int | None


@dataclass(frozen=True)
class TurnFinished(Event):
    type: ClassVar[str] = "turn_finished"
    reason: FinishReason
    text: str
    steps: int
    usage: Usage = field(default_factory=Usage)
    message: str | None = None  # why the turn stopped early, for the user
    # For reason "error": "provider", "unknown_model" (the provider has no such model), or
    # "runtime" (a bug).
    error_kind: str | None = None


@dataclass(frozen=True)
class DeckSuspense(Event):
    """A deck's action is taking a while: what its suspense handler said about it (or, with
    none, that it is still working), to show at once; it comes inside a `Nested`."""

    type: ClassVar[str] = "deck_suspense"
    chain: tuple[str, ...]
    activity: str
    message: str
    elapsed_ms: int


@dataclass(frozen=True)
class Nested(Event):
    """An event of a deck's run (a sub-agent) that one of this turn's tool calls started, for
    live display: `call_id` is that call's, `chain` the decks from the one it called down to
    the one whose run produced `event`. Never part of this conversation: the call's result is.
    """

    type: ClassVar[str] = "nested"
    call_id: str
    chain: tuple[str, ...]
    event: AnyEvent
    action_call_id: str = ""  # the run of the last deck of `chain` (its trace's actionCallId)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "call_id": self.call_id,
            "chain": list(self.chain),
            "action_call_id": self.action_call_id,
            "event": self.event.to_dict(),
        }


AnyEvent = (
    TurnStarted
    | StepStarted
    | StepPlanned
    | TextDelta
    | ReasoningDelta
    | Retrying
    | ModelReplied
    | ToolCallStarted
    | ToolProgress
    | PermissionRequested
    | PermissionDecided
    | ToolCallFinished
    | StepFinished
    | AgentError
    | HookWarning
    | Compacted
    | ChecksReported
    | BudgetWarning
    | DeckSuspense
    | Nested
    | TurnFinished
)
"""Every event the loop yields. Consumers `match` on it and end with `assert_never`, so a kind
one of them misses fails the type check."""

EVENT_TYPES: tuple[type[Event], ...] = (
    TurnStarted,
    StepStarted,
    StepPlanned,
    TextDelta,
    ReasoningDelta,
    Retrying,
    ModelReplied,
    ToolCallStarted,
    ToolProgress,
    PermissionRequested,
    PermissionDecided,
    ToolCallFinished,
    StepFinished,
    AgentError,
    HookWarning,
    Compacted,
    ChecksReported,
    BudgetWarning,
    DeckSuspense,
    Nested,
    TurnFinished,
)


__all__ = [
    "EVENT_TYPES",
    "AgentError",
    "AnyEvent",
    "BudgetWarning",
    "Compacted",
    "DeckSuspense",
    "Event",
    "FinishReason",
    "HookWarning",
    "ModelReplied",
    "Nested",
    "PermissionDecided",
    "PermissionRequested",
    "ReasoningDelta",
    "Retrying",
    "StepFinished",
    "StepPlanned",
    "StepStarted",
    "TextDelta",
    "ToolCallFinished",
    "ToolCallStarted",
    "ToolProgress",
    "TurnFinished",
    "TurnStarted",
    "Usage",
]
