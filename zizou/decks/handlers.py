"""What a deck's run hears when one of its actions fails or takes long.

A deck may name handler decks: `handlers.on_error` and `handlers.on_suspense`. The handler
that answers is the nearest one up the chain: the calling deck's own, else its caller's, and
so on (the main agent has none). Its input is an envelope of fixed shape:

    error:    {"kind": "error", "activity", "source": {"deckPath", "actionName"},
               "error": {"message", "code", "details"}, "childInput"}
    suspense: {"kind": "suspense", "activity", "source": {"deckPath", "actionName"},
               "trigger": {"reason": "timeout", "elapsedMs"}, "childInput"}

and what it returns (`{"kind", "message", "activity", "source", "error"?, "payload"?,
"meta"?}`; a text output is the message; the payload is advisory) is put into the calling
deck's conversation once its step's tool results are in, as an assistant call to
`zizou_error_event` or `zizou_suspense_event` and that call's result: the caller then decides to
speak of it, ignore it or fail. The failed action's own result stays the original error; a
handler that fails itself adds its failure to that error, never replaces it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import time
from typing import TYPE_CHECKING, Any

from zizou.contracts.conversation import Conversation
from zizou.contracts.events import DeckSuspense, Nested
from zizou.contracts.messages import ToolMessage
from zizou.contracts.protocols import ToolCall
from zizou.decks.child import ActionRun
from zizou.decks.spec import Deck, DeckSet
from zizou.decks.tools import ActionInfo, Caller, Outcome

if TYPE_CHECKING:
    from zizou.decks.host import DeckHost

ERROR_EVENT = "zizou_error_event"
SUSPENSE_EVENT = "zizou_suspense_event"
ENVELOPE_KEYS = ("kind", "message", "activity", "source", "error", "payload", "meta")


def nearest(caller: Caller, kind: str, decks: DeckSet) -> tuple[Deck, Deck] | None:
    """(the deck that names it, the handler deck) of the nearest `kind` handler up the chain
    of `caller` (`on_error`, `on_suspense`); None when no deck of the chain names one."""
    for owner in reversed(caller.lineage):
        path = owner.handlers.get(kind)
        handler = decks.by_path(path) if path is not None else None
        if handler is not None:
            return owner, handler
    return None


def error_input(
    source: dict[str, str], activity: str, outcome: Outcome, child_input: Any
) -> dict[str, Any]:
    return {
        "kind": "error",
        "activity": activity,
        "source": source,
        "error": {"message": outcome.message, "code": outcome.code, "details": outcome.details},
        "childInput": child_input,
    }


def suspense_input(
    source: dict[str, str], activity: str, elapsed_ms: int, child_input: Any
) -> dict[str, Any]:
    return {
        "kind": "suspense",
        "activity": activity,
        "source": source,
        "trigger": {"reason": "timeout", "elapsedMs": elapsed_ms},
        "childInput": child_input,
    }


def envelope(handled: Any, sent: dict[str, Any]) -> dict[str, Any]:
    """The handler's answer as the envelope the caller reads: its own fields (of those an
    envelope has), the rest from what it was sent; a text answer is the message."""
    answer = handled if isinstance(handled, dict) else {"message": str(handled)}
    result = {key: answer[key] for key in ENVELOPE_KEYS if key in answer}
    result["kind"] = sent["kind"]  # what happened is not the handler's to say
    for key in ("activity", "source", "error"):
        if key in sent:
            result.setdefault(key, sent[key])
    result.setdefault("message", "")
    return result


def _as_handler(handler: Deck, kind: str) -> ActionInfo:
    return ActionInfo(handler.name, handler.description, f"handling_{kind}", str(handler.path))


async def handle_error(env: DeckHost, failed: ActionRun, outcome: Outcome) -> Outcome:
    """The failed action's outcome, after the nearest `on_error` handler (if any) was told:
    its envelope goes into the caller's conversation; if it fails too, the original error
    stays and says so."""
    caller, nest, trace = failed.caller, failed.nest, failed.trace
    found = (
        None if caller.handling or caller.inject is None else nearest(caller, "on_error", env.decks)
    )
    if found is None or caller.inject is None:
        return outcome
    _, handler = found
    sent = error_input(failed.source, failed.activity, outcome, failed.value)
    handling = dataclasses.replace(caller, handling=True)
    handled = await env.call(handler, _as_handler(handler, "error"), sent, handling, nest)
    if not handled.ok:
        why = f"{handled.code}: {handled.message}"
        return dataclasses.replace(
            outcome, message=f"{outcome.message} (its error handler {handler.name} failed: {why})"
        )
    event = envelope(handled.output, sent)
    trace.event("error", actionCallId=failed.action_call_id, handler=handler.name, ok=True)
    caller.inject(ERROR_EVENT, event)
    return outcome


def watch_suspense(env: DeckHost, failed: ActionRun) -> asyncio.Task[None] | None:
    """Once the action has run for the nearest `on_suspense` handler's delay (its deck's
    `suspense_delay_ms`), that handler is run once; its message is shown at once and goes into
    the caller's conversation. The task is cancelled when the action ends first."""
    caller, nest, trace = failed.caller, failed.nest, failed.trace
    found = (
        None
        if caller.handling or caller.inject is None
        else nearest(caller, "on_suspense", env.decks)
    )
    inject_event = caller.inject
    if found is None or inject_event is None:
        return None
    owner, handler = found
    started = time.monotonic()

    async def fire() -> None:
        await asyncio.sleep(owner.suspense_delay_ms / 1000)
        elapsed = round((time.monotonic() - started) * 1000)
        sent = suspense_input(failed.source, failed.activity, elapsed, failed.value)
        handling = dataclasses.replace(caller, handling=True)
        handled = await env.call(handler, _as_handler(handler, "suspense"), sent, handling, nest)
        if not handled.ok:
            return  # its trace says why; the action goes on
        event = envelope(handled.output, sent)
        message = str(event.get("message") or f"still working: {failed.activity}")
        chain = (*caller.chain, failed.deck.name)
        trace.event(
            "suspense", actionCallId=failed.action_call_id, handler=handler.name, elapsedMs=elapsed
        )
        if nest is not None:
            shown = DeckSuspense(chain, failed.activity, message, elapsed)
            nest(Nested("", chain, shown, failed.action_call_id))
        inject_event(SUSPENSE_EVENT, event)

    return asyncio.create_task(fire())


def inject(conversation: Conversation, name: str, payload: dict[str, Any]) -> None:
    """`payload` as an assistant call to `name` and its result, at the end of `conversation`."""
    call = ToolCall(f"{name}_{secrets.token_hex(3)}", name, "{}")
    conversation.add_assistant("", (call,))
    content = json.dumps(payload, ensure_ascii=False)
    conversation.add_tool_result(ToolMessage(tool_call_id=call.id, content=content, name=name))


__all__ = [
    "ERROR_EVENT",
    "SUSPENSE_EVENT",
    "envelope",
    "error_input",
    "handle_error",
    "inject",
    "nearest",
    "suspense_input",
    "watch_suspense",
]
