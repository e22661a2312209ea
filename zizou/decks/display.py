"""How a deck's run shows while it runs: one line per event worth a glance, under the call
that started the deck (the app's tool row, a terminal's status line), and a deck's signature
as the lists of decks show it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from zizou.contracts.events import (
    AgentError,
    DeckSuspense,
    HookWarning,
    ModelReplied,
    Nested,
    PermissionRequested,
    StepStarted,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
)

if TYPE_CHECKING:
    from zizou.decks.spec import Deck

LINE_CHARS = 160
INTO = " \u203a "  # between a deck and the deck or tool it called


def nested_line(nested: Nested) -> str | None:
    """The line `nested` shows as, or None for an event not worth one (text as it streams,
    a plan, a permission decided)."""
    chain = INTO.join(nested.chain)
    match nested.event:
        case StepStarted(step=step):
            line = f"{chain} · model call {step}"
        case ModelReplied(tool_calls=names):
            line = f"{chain} · wants {', '.join(names)}" if names else f"{chain} · answered"
        case ToolCallStarted(name=name, label=label):
            line = f"{chain}{INTO}{name} {label}".rstrip()
        case ToolProgress(name=name, text=text):
            line = f"{chain}{INTO}{name}: {text}"
        case ToolCallFinished(name=name, ok=ok, duration_s=took):
            line = f"{chain}{INTO}{name} {'✓' if ok else '✗'} {took:.1f}s"
        case PermissionRequested(tool=tool, summary=summary):
            line = f"{chain}{INTO}{tool} waits for your approval: {summary}"
        case DeckSuspense(message=message, elapsed_ms=elapsed):
            line = f"{chain}: {message} ({elapsed / 1000:.0f} s)"
        case AgentError(message=message) | HookWarning(message=message):
            line = f"{chain}: {message}"
        case TurnFinished(reason=reason):
            line = f"{chain} finished ({reason})"
        case _:
            return None
    line = " ".join(line.split())
    return line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…"


__all__ = ["nested_line"]


def signature(deck: Deck) -> str:
    """`input → output`, each `string` or an object's property names (`?`: optional)."""
    return f"{_short(deck.input_schema)} → {_short(deck.output_schema)}"


def _short(schema: dict[str, Any] | None) -> str:
    if schema is None or schema.get("type") == "string":
        return "string"
    properties = schema.get("properties")
    if isinstance(properties, dict):
        required = set(schema.get("required") or ())
        names = [name if name in required else f"{name}?" for name in properties]
        return "{" + ", ".join(names) + "}"
    return str(schema.get("type") or "json")


def output_text(output: Any) -> str:
    """A deck's output as a person reads it: text as it is, anything else as indented JSON."""
    if isinstance(output, str):
        return output
    return json.dumps(output, indent=2, ensure_ascii=False)
