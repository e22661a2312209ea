"""The tools a deck's run brings: each deck as a tool of its caller (the main agent, or a
parent deck's action), and a child's own `return_output` and `fail`.

A deck's parameters are a JSON Schema, not a pydantic model: `SchemaTool` sends the schema as
it is and checks each call's arguments against it with `jsonschema`, so an invalid input is a
tool error naming the field, and no child request is made for it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from pydantic import Field

from zizou.contracts.events import Nested
from zizou.contracts.task_state import TaskState
from zizou.decks.spec import Deck
from zizou.errors import UsageError
from zizou.tools import Access, Tool, ToolArgs, ToolContext, ToolResult
from zizou.tools.schema_tool import SchemaArgs, SchemaTool, schema_problems, short_input

# The codes zizou gives a run's failures (and `zizou run` maps to exit codes); a deck's own
# `fail(code=...)` with one of them is renamed `deck_<code>`.
RESERVED_CODES = frozenset(
    {
        "timeout",
        "invalid_input",
        "invalid_output",
        "model",
        "provider",
        "runtime",
        "cancelled",
        "loop_guard",
        "budget",
    }
)


@dataclass(frozen=True)
class Caller:
    """Who calls a deck: the main agent (depth 0) or a deck's run at `depth`, inside the trace
    `run_id` (None: the call starts a run of its own) under the action `action_call_id`."""

    depth: int = 0
    chain: tuple[str, ...] = ()
    run_id: str | None = None
    action_call_id: str | None = None
    state: TaskState | None = field(default=None, compare=False)  # the deck's (`--state`)
    lineage: tuple[Deck, ...] = field(default=(), compare=False)  # the decks of `chain`
    handling: bool = False  # the call runs a handler: its own failure is not handled again
    # Puts an event (`zizou_error_event`...) into the calling deck's conversation, once its
    # step's tool results are in; None for the main agent.
    inject: Callable[[str, dict[str, Any]], None] | None = field(default=None, compare=False)


@dataclass(frozen=True)
class ActionInfo:
    """How a caller knows a deck: the tool name it calls, and why it would."""

    name: str
    description: str
    activity: str
    path: str  # as the deck file that declares the action says it, or the deck's own file


@dataclass
class Outcome:
    """How a deck's run ended: its output, or an error with a code (`guardrail_depth`,
    `guardrail_passes`, `guardrail_budget`, `timeout`, `invalid_input`, `failed`...)."""

    ok: bool
    output: Any = None
    code: str = ""
    message: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def result(self, name: str) -> ToolResult:
        """What the caller's model reads: the output as JSON (a string output as text), or
        the error with its code."""
        if self.ok:
            text = self.output if isinstance(self.output, str) else json.dumps(self.output)
            return ToolResult(True, text)
        return ToolResult.error(f"the deck {name} failed ({self.code}): {self.message}")


class Launch(Protocol):
    """Runs `deck` for a caller (zizou.decks.run.DeckEnv.call)."""

    def __call__(
        self,
        deck: Deck,
        action: ActionInfo,
        value: Any,
        caller: Caller,
        nest: Callable[[Nested], None] | None,
    ) -> Awaitable[Outcome]: ...


class DeckTool(SchemaTool):
    """A deck its caller runs as a tool (subclassed per deck by `deck_tool`)."""

    deck: ClassVar[Deck]
    action: ClassVar[ActionInfo]

    def __init__(self, launch: Launch, caller: Caller) -> None:
        self.launch = launch
        self.caller = caller

    def access(self, args: SchemaArgs, ctx: ToolContext) -> Access:
        # The deck's own calls ask for themselves, in its run: calling it touches nothing.
        return Access(kind=self.access_kind)  # type: ignore[arg-type]

    def preview(self, args: SchemaArgs, access: Access, ctx: ToolContext) -> str | None:
        return json.dumps(args.model_dump(mode="json"), indent=2)[:4000]

    def label(self, args: SchemaArgs) -> str:
        return f"deck · {short_input(args.model_dump(mode='json'))}"

    async def execute(self, args: SchemaArgs, access: Access, ctx: ToolContext) -> ToolResult:
        value = unwrapped(self.deck, args.model_dump(mode="json"))
        outcome = await self.launch(self.deck, self.action, value, self.caller, ctx.nest)
        return outcome.result(self.deck.name)


def unwrapped(deck: Deck, arguments: dict[str, Any]) -> Any:
    """A deck's input from a call's arguments: an input that is not an object comes wrapped
    as `{"input": ...}` (see `Deck.tool_parameters`)."""
    schema = deck.input_schema
    return (
        arguments if schema is not None and schema.get("type") == "object" else arguments["input"]
    )


def input_from_text(deck: Deck, text: str | None) -> Any:
    """A deck's input as a person types it (`--input`, `/run`): text for a string input (a
    JSON string unquoted), JSON for any other; a UsageError when it is not JSON. The schema
    is checked by the run, before any request."""
    if deck.input_is_string:
        if text is None:
            return ""
        try:
            value = json.loads(text)
        except ValueError:
            return text
        return value if isinstance(value, str) else text
    if text is None or not text.strip():
        raise UsageError(f"the deck {deck.name} takes a JSON input, such as {_example(deck)}")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise UsageError(
            f"the input is not valid JSON ({exc}); the deck {deck.name} takes JSON, such as "
            f"{_example(deck)}"
        ) from None


def _example(deck: Deck) -> str:
    """An input of `deck`'s shape, for a message: its required fields, as strings."""
    schema = deck.input_schema or {}
    names = schema.get("required") or list(schema.get("properties", {}))[:1]
    return json.dumps(dict.fromkeys(names, "..."))


def action_of(deck: Deck) -> ActionInfo:
    """A deck as its own action: what the main agent and `zizou run` call it by."""
    return ActionInfo(deck.name, deck.description, deck.activity or deck.name, str(deck.path))


def deck_tool(deck: Deck, action: ActionInfo, launch: Launch, caller: Caller) -> DeckTool:
    """`deck` as a tool named `action.name` for `caller`."""
    read_only = deck.reads_only
    cls = type(
        f"DeckTool_{action.name}",
        (DeckTool,),
        {
            "__doc__": _description(deck, action),
            "name": action.name,
            "summary": _summary(action.description or deck.name),
            "parameters": deck.tool_parameters(),
            "access_kind": "read" if read_only else "write",
            "side_by_side": read_only,
            "deck": deck,
            "action": action,
        },
    )
    tool: DeckTool = cls(launch, caller)
    return tool


def _description(deck: Deck, action: ActionInfo) -> str:
    returns = "its answer as text" if deck.output_is_string else "its output as JSON"
    what = action.description or deck.description or f"the deck {deck.name}"
    return f"{what}\n\nRuns the deck {deck.name} as a sub-agent and returns {returns}."


def _summary(text: str) -> str:
    """The first sentence of `text`, within the tool guide's 100 characters."""
    first = " ".join(text.split()).split(". ")[0].rstrip(".")
    if len(first) > 98:
        first = first[:97].rstrip() + "…"
    return first + "."


@dataclass
class RunBox:
    """Where a child's `return_output` or `fail` leaves how its run ends."""

    output: Any = None
    returned: bool = False
    failure: tuple[str, str] | None = None  # (code, message)

    @property
    def done(self) -> bool:
        return self.returned or self.failure is not None


class ReturnOutput(SchemaTool):
    """Return this deck's output and end its run. The arguments are the output itself, checked
    against the output schema: fix what a refusal names and call again."""

    name = "return_output"
    summary = "Return this deck's output (checked against its schema) and end the run."
    access_kind = "read"
    wrapped: ClassVar[bool] = False  # the output is not an object: sent as {"output": ...}

    def __init__(self, box: RunBox) -> None:
        self.box = box

    def access(self, args: SchemaArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    def work(self, args: SchemaArgs, access: Access, ctx: ToolContext) -> ToolResult:
        data = args.model_dump(mode="json")
        self.box.output = data["output"] if self.wrapped else data
        self.box.returned = True
        return ToolResult(True, "output accepted; the run ends here")


def return_output_tool(deck: Deck, box: RunBox) -> ReturnOutput:
    """`return_output` with `deck`'s output schema as its parameters."""
    schema = deck.output_schema or {"type": "string"}
    wrapped = schema.get("type") != "object"
    parameters = (
        {
            "type": "object",
            "properties": {"output": schema},
            "required": ["output"],
            "additionalProperties": False,
        }
        if wrapped
        else schema
    )
    cls = type("ReturnOutput_", (ReturnOutput,), {"parameters": parameters, "wrapped": wrapped})
    tool: ReturnOutput = cls(box)
    return tool


class CallDeckArgs(ToolArgs):
    name: str = Field(description="The deck's name, from the list in this tool's description.")
    input: Any = Field(description="The deck's input: an object, or a string for a text input.")


class CallDeck(Tool[CallDeckArgs]):
    """Run one of the project's decks (a sub-agent) by name on an input that fits its input
    schema; returns its output. (Subclassed by `call_deck_tool` with the list of decks.)"""

    name = "call_deck"
    summary = "Run one of the project's decks (sub-agents) by name."
    Args = CallDeckArgs
    label_field = "name"

    def __init__(
        self,
        decks: dict[str, Deck],
        launch: Launch,
        caller: Caller,
        read_only: Callable[[], str | None] | None = None,
    ) -> None:
        self.decks = decks
        self.launch = launch
        self.caller = caller
        self.read_only = read_only  # plan mode: a deck that writes is refused (by its deck)

    def label(self, args: CallDeckArgs) -> str:
        return f"deck {args.name} · {short_input(args.input)}"

    def access(self, args: CallDeckArgs, ctx: ToolContext) -> Access:
        deck = self.decks.get(args.name)
        return Access(kind="read" if deck is not None and deck.reads_only else "write")

    async def execute(self, args: CallDeckArgs, access: Access, ctx: ToolContext) -> ToolResult:
        deck = self.decks.get(args.name)
        if deck is None:
            return ToolResult.error(
                f"there is no deck named {args.name!r}; the decks are: {', '.join(self.decks)}"
            )
        why = self.read_only() if self.read_only is not None and not deck.reads_only else None
        if why is not None:
            return ToolResult.error(f"the deck {deck.name} writes, and is not run now ({why})")
        wrapped = args.input
        if deck.input_schema is None or deck.input_schema.get("type") != "object":
            wrapped = {"input": args.input}
        problems = schema_problems(deck.tool_parameters(), wrapped)
        if problems:
            return ToolResult.error(
                f"invalid input for the deck {deck.name}: {'; '.join(problems)}"
            )
        outcome = await self.launch(deck, action_of(deck), args.input, self.caller, ctx.nest)
        return outcome.result(deck.name)


def call_deck_tool(
    decks: list[Deck],
    launch: Launch,
    caller: Caller,
    read_only: Callable[[], str | None] | None = None,
) -> CallDeck:
    """`call_deck` for more decks than are offered one by one, its description their list."""
    lines = [
        f"- {deck.name}: {deck.description or '(no description)'} Input schema: "
        f"{json.dumps(deck.input_schema or {'type': 'string'}, separators=(',', ':'))}"
        for deck in decks
    ]
    doc = f"{CallDeck.__doc__}\n\nThe decks:\n" + "\n".join(lines)
    # "read" whatever its decks do: a deck that writes is refused by `execute` in plan mode,
    # not every deck with it.
    cls = type("CallDeck_", (CallDeck,), {"__doc__": doc, "access_kind": "read"})
    tool: CallDeck = cls({deck.name: deck for deck in decks}, launch, caller, read_only)
    return tool


class FailArgs(ToolArgs):
    message: str = Field(description="Why the deck cannot produce its output.")
    code: str | None = Field(default=None, description="A short snake_case code, if one fits.")


class Fail(Tool[FailArgs]):
    """Give up: end this deck's run with an error its caller reads. Use it when the input
    cannot be answered, not for a mistake you can fix."""

    name = "fail"
    summary = "End this deck's run with an error its caller reads."
    Args = FailArgs
    label_field = "message"
    access_kind = "read"

    def __init__(self, box: RunBox) -> None:
        self.box = box

    def access(self, args: FailArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    def work(self, args: FailArgs, access: Access, ctx: ToolContext) -> ToolResult:
        code = args.code or "failed"
        if code in RESERVED_CODES or code.startswith("guardrail"):  # those are zizou's to say
            code = f"deck_{code}"
        self.box.failure = (code, args.message)
        return ToolResult(True, "the run ends with this error")


__all__ = [
    "ActionInfo",
    "CallDeck",
    "Caller",
    "DeckTool",
    "Fail",
    "Launch",
    "Outcome",
    "ReturnOutput",
    "RunBox",
    "SchemaArgs",
    "SchemaTool",
    "action_of",
    "call_deck_tool",
    "deck_tool",
    "input_from_text",
    "return_output_tool",
    "schema_problems",
    "short_input",
    "unwrapped",
]
