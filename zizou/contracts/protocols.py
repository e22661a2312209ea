"""The seams: a Model streams replies, an Approver answers permission requests, an EventSink
records events. Fakes for each ship in the package so tests inject them instead of patching."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from zizou.contracts.events import AnyEvent, HookWarning, ReasoningDelta, Retrying, Usage

if TYPE_CHECKING:
    from zizou.confined import PathHandle
    from zizou.sandbox.layer_apply import Applied


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text, validated by the loop, never trusted


@dataclass(frozen=True)
class ModelRequest:
    """One step's request. The first `stable_chars` characters of `system` are its stable
    prefix (the layers that do not change from step to step): a provider with prompt caching
    gets them marked cacheable. `tools` are the tools offered in this step."""

    system: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    stable_chars: int = 0
    # The last `ephemeral` messages are this request's alone (hooks' reminders), never stored;
    # `whole_history`: the messages before them are the conversation itself, not a window of
    # it or a hook's replacement (only then may a shortened copy become the conversation).
    ephemeral: int = 0
    whole_history: bool = True
    # The reply's length limit, in tokens (None: the provider's default); a spending cap sets
    # it to the room it leaves (core/spending.py).
    max_output_tokens: int | None = None
    # Whether a context overflow may be answered by shortening the history and sending again;
    # False once the turn compacted as often as its guard allows (core/guards.py).
    may_shorten: bool = True

    @property
    def system_parts(self) -> tuple[str, str]:
        """The system prompt split into its stable prefix and the volatile rest."""
        return self.system[: self.stable_chars], self.system[self.stable_chars :]

    def full_messages(self) -> list[dict[str, Any]]:
        return [{"role": "system", "content": self.system}, *self.messages]


@dataclass(frozen=True)
class TextPiece:
    text: str


@dataclass(frozen=True)
class ModelReply:
    """The last item of every stream: the whole assembled reply."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None


# A stream yields the answer's text as TextPieces and the model's reasoning, where it gives
# any, as ReasoningDeltas (the loop passes them on as they are), and ends with the ModelReply.
ModelEvent = TextPiece | ReasoningDelta | Retrying | ModelReply


@dataclass(frozen=True)
class StepInput:
    """What step effects (hooks) see of the coming step."""

    step: int  # 1-based, in the turn
    turn: int  # 1-based, in the session (as this process counts them)
    tools: tuple[str, ...]  # the tools that would be offered
    messages: tuple[dict[str, Any], ...]  # the history as the request would send it
    model: str = ""
    usage: Usage = field(default_factory=Usage)  # of the turn's steps so far


@dataclass(frozen=True)
class StepChanges:
    """What step effects change about the coming request: tools hidden (name -> why),
    systems added to the HOOKS layer ((name, text)), reminders sent at the end of this request
    only, the history replaced for this request (checked: it keeps the last message and pairs
    every tool result with its call), the effects that ran (one line each) and the warnings of
    hooks that failed."""

    hidden: tuple[tuple[str, str], ...] = ()
    systems: tuple[tuple[str, str], ...] = ()
    reminders: tuple[tuple[str, str], ...] = ()  # (source, text)
    effects_run: tuple[str, ...] = ()
    messages: tuple[dict[str, Any], ...] | None = None
    warnings: tuple[HookWarning, ...] = ()


class StepEffects(Protocol):
    """Runs before every model step and shapes its request (the hook runtime implements it, so
    core never imports user code). It may only narrow the tools, never add one."""

    def plan_step(self, step: StepInput) -> StepChanges: ...


class NoEffects:
    """No hooks: every step is the plain render."""

    def plan_step(self, step: StepInput) -> StepChanges:
        return StepChanges()


@dataclass(frozen=True)
class PolicyVerdict:
    """A tool policy's tightening of one call: refuse it, or ask the user although the rules
    would let it run. `source` names the policy ("hook:<file>")."""

    verdict: Literal["deny", "ask"]
    reason: str
    source: str


class ToolPolicy(Protocol):
    """Looks at a call after the permission rules allowed or asked for it, and may only
    tighten: deny it, or ask for a call the rules would let run."""

    def before_tool(
        self, name: str, arguments: dict[str, Any], kind: str
    ) -> PolicyVerdict | None: ...


# How what a command changes is found for undo: "snapshot", the project's files before and
# after it (every change made meanwhile, by anyone, so each is only maybe the command's);
# "layer", it runs in a copy-on-write layer of its own and its result says what it changed
# (`ToolResult.applied`); "unwatched", not at all (a background job: its changes stay).
CommandWatching = Literal["snapshot", "layer", "unwatched"]


class CommandWatch(Protocol):
    """A command's files, kept before it runs (see `ChangeRecorder.before_command`): `problem`
    says why they could not be, if they could not; `finished`, once the command ended (done,
    failed or cancelled), keeps what it changed (`applied`: what its layer said, for a command
    watched by its layer), and says why that could not be kept, if so. Calling `finished`
    again does nothing."""

    problem: str | None

    def finished(self, applied: Applied | None = None) -> str | None: ...


class ChangeRecorder(Protocol):
    """Keeps what a call is about to change, for undo (zizou/checkpoints/ implements it, so core
    never imports the store). The call runner calls `before_change` with each file of an allowed
    write or delete call right before the tool runs, and `after_change` once it ended (done,
    failed or cancelled): each with the very handle the tool works through. `before_change`
    returns why the file's bytes could not be kept, if they could not; the tool still runs.
    A command (an allowed exec call, a compute deck's worker) can change any file: before it
    runs, `before_command` keeps the project's files (None: commands are not watched), and
    the watch's `finished` keeps what it changed. These may block: call them in a thread."""

    def before_change(self, file: PathHandle) -> str | None: ...

    def after_change(self, file: PathHandle) -> None: ...

    def before_command(
        self, command: str, watched: CommandWatching = "snapshot"
    ) -> CommandWatch | None: ...


class ChangeChecks(Protocol):
    """Looks at files as tools change them, and says what the changes broke (zizou/checks/
    implements it: syntax problems, and the checkers the user configured). The call runner
    calls `before_change` and `after_change` around each file a write call changes (with the
    file's bytes; None: it did not exist) and appends what `after_change` returns to the call's
    result, and `seen` (in a worker thread) with a file the model read that it `wants`. The
    main agent's loop
    calls `new_turn` as a turn starts, and `turn_end` when the model ends it: what that
    returns is sent to the model, and the turn goes on."""

    def wants(self, rel: str) -> bool: ...

    def seen(self, rel: str, data: bytes) -> None: ...

    async def before_change(self, rel: str, data: bytes | None) -> None: ...

    async def after_change(self, rel: str, data: bytes) -> str | None: ...

    def new_turn(self) -> None: ...

    async def turn_end(self) -> str | None: ...


@runtime_checkable
class Model(Protocol):
    """A chat model. `stream` yields text pieces (and retry notices) and ends with a ModelReply;
    it raises `ProviderError` when the provider fails for good. A class that subclasses this
    protocol inherits the defaults of the other two methods."""

    id: str

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...

    def call_parameters(self) -> dict[str, Any]:
        """How every request is sent, never the key (the debug log reports it)."""
        return {"model": self.id}

    def secrets(self) -> tuple[str, ...]:
        """The key values this model holds, for the redactors to mask."""
        return ()


@dataclass(frozen=True)
class PermissionRequest:
    call_id: str
    tool: str
    summary: str  # the exact command, or the path
    detail: str | None = None  # a diff for writes, the cwd/timeout for commands
    suggested_rules: tuple[str, ...] = ()  # what "always allow" would save: one per segment
    protected: bool = False
    rule_scope: str | None = None  # what those rules would permit, in words
    network_choice: bool = False  # the person may let this command use the network
    reason: str = ""  # why the policy asks
    kind: str = "undeclared"  # what the call touches: read, write, exec, network, open...
    chain: tuple[str, ...] = ()  # the decks whose run made the call (empty: the main agent's)


@dataclass(frozen=True)
class Approval:
    verdict: Literal["once", "always", "deny"]
    reason: str | None = None
    network: bool = False  # run this command with the network (in the sandbox)
    by: Literal["user", "headless"] = "user"  # who answered: a person, or headless mode


class Approver(Protocol):
    async def ask(self, request: PermissionRequest) -> Approval: ...


class EventSink(Protocol):
    def emit(self, event: AnyEvent) -> None: ...


class TurnRecorder(EventSink, Protocol):
    """Sees everything a turn does: the debug log and the session store are recorders.

    The loop calls `begin_turn` before anything is sent, `record_request` with each step's exact
    request, and `emit` with every event it yields.
    """

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None: ...

    def record_request(self, step: int, request: ModelRequest) -> None: ...


__all__ = [
    "Approval",
    "Approver",
    "ChangeChecks",
    "ChangeRecorder",
    "CommandWatch",
    "CommandWatching",
    "EventSink",
    "Model",
    "ModelEvent",
    "ModelReply",
    "ModelRequest",
    "NoEffects",
    "PermissionRequest",
    "PolicyVerdict",
    "StepChanges",
    "StepEffects",
    "StepInput",
    "TextPiece",
    "ToolCall",
    "ToolPolicy",
    "TurnRecorder",
]
