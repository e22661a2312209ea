"""A deck's error and suspense handlers: the nearest one up the chain is run with an envelope
of fixed shape, and its answer goes into the calling deck's conversation as a
`zizou_error_event` or `zizou_suspense_event` pair; the original error is never masked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zizou.config.options import RunOptions
from zizou.contracts.events import DeckSuspense, Nested
from zizou.decks.tools import Caller, action_of
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session
from zizou.session.unattended import HeadlessApprover

IN = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
OUT = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
ANY = {"type": "object"}
SAID = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}


def deck(root: Path, name: str, **front: Any) -> None:
    folder = root / ".zizou" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"description": f"The {name} deck.", "input": IN, "output": OUT, "tools": [], **front}
    (folder / f"{name}.deck.md").write_text(f"---\n{json.dumps(front)}\n---\nDo it.\n")


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def session(root: Path, model: ScriptedModel) -> Session:
    options = RunOptions(root=root, debug_log=False)
    return build_session(options, model, HeadlessApprover(), persist=False)


async def run(runtime: Session, name: str, nest: Any = None) -> Any:
    env = runtime.decks
    assert env is not None
    found = env.decks.get(name)
    assert found is not None, env.decks.problems
    return await env.call(found, action_of(found), {"topic": "t"}, Caller(), nest)


def messages_of(request: Any) -> list[dict[str, Any]]:
    return list(request.messages)


def event_pair(request: Any, name: str) -> dict[str, Any]:
    """The injected call to `name` and its result, from a request's history."""
    messages = messages_of(request)
    for index, message in enumerate(messages):
        calls = message.get("tool_calls") or []
        if calls and calls[0]["function"]["name"] == name:
            result = messages[index + 1]
            assert result["role"] == "tool" and result["tool_call_id"] == calls[0]["id"]
            payload: dict[str, Any] = json.loads(result["content"])
            return payload
    raise AssertionError(f"no {name} in the request")


def parent_with(root: Path, **handlers: str) -> None:
    deck(root, "child")
    deck(root, "handler", input=ANY, output=SAID)
    deck(
        root,
        "parent",
        actions=[{"path": "child.deck.md", "activity": "summing_up"}],
        handlers=dict.fromkeys(handlers, "handler.deck.md"),
        suspense_delay_ms=100,
    )


async def test_a_failing_child_is_handled_and_the_parent_reads_the_envelope(
    tmp_path: Path,
) -> None:
    parent_with(tmp_path, on_error="yes")
    model = ScriptedModel(
        [
            {"tool_calls": [call("child", topic="x")]},  # parent
            {"tool_calls": [call("fail", message="no data", code="empty")]},  # child
            {"tool_calls": [call("return_output", message="the child found no data")]},  # handler
            {"tool_calls": [call("return_output", summary="nothing to sum")]},  # parent
        ]
    )
    outcome = await run(session(tmp_path, model), "parent")
    assert outcome.ok and outcome.output == {"summary": "nothing to sum"}
    handler_input = json.loads(model.requests[2].messages[-1]["content"])
    assert handler_input == {
        "kind": "error",
        "activity": "summing_up",
        "source": {"deckPath": ".zizou/decks/child.deck.md", "actionName": "child"},
        "error": {"message": "no data", "code": "empty", "details": {}},
        "childInput": {"topic": "x"},
    }
    last = model.requests[3]
    failed = [m for m in messages_of(last) if m["role"] == "tool"][1]
    assert "the deck child failed (empty): no data" in failed["content"]
    assert event_pair(last, "zizou_error_event") == {
        "kind": "error",
        "message": "the child found no data",
        "activity": "summing_up",
        "source": handler_input["source"],
        "error": handler_input["error"],
    }


async def test_without_a_handler_the_failure_is_the_parents_tool_error(tmp_path: Path) -> None:
    parent_with(tmp_path)
    model = ScriptedModel(
        [
            {"tool_calls": [call("child", topic="x")]},
            {"tool_calls": [call("fail", message="no data")]},
            {"tool_calls": [call("return_output", summary="gave up")]},
        ]
    )
    outcome = await run(session(tmp_path, model), "parent")
    assert outcome.ok and len(model.requests) == 3
    history = json.dumps(messages_of(model.requests[2]))
    assert "no data" in history and "zizou_error_event" not in history


async def test_a_handler_that_fails_never_masks_the_original_error(tmp_path: Path) -> None:
    parent_with(tmp_path, on_error="yes")
    model = ScriptedModel(
        [
            {"tool_calls": [call("child", topic="x")]},
            {"tool_calls": [call("fail", message="no data", code="empty")]},
            {"tool_calls": [call("fail", message="handler broke")]},
            {"tool_calls": [call("return_output", summary="done")]},
        ]
    )
    await run(session(tmp_path, model), "parent")
    result = [m for m in messages_of(model.requests[3]) if m["role"] == "tool"][1]["content"]
    assert "(empty): no data" in result and "its error handler handler failed" in result
    assert "zizou_error_event" not in json.dumps(messages_of(model.requests[3]))


async def test_a_slow_child_fires_one_suspense_event_and_a_fast_one_none(tmp_path: Path) -> None:
    parent_with(tmp_path, on_suspense="yes")
    model = ScriptedModel(
        [
            {"tool_calls": [call("child", topic="x")]},  # parent
            {"delay_s": 1.0, "tool_calls": [call("return_output", summary="slow")]},  # child
            {"tool_calls": [call("return_output", message="still summing up")]},  # handler
            {"tool_calls": [call("return_output", summary="done")]},  # parent
        ]
    )
    seen: list[Nested] = []
    outcome = await run(session(tmp_path, model), "parent", seen.append)
    assert outcome.ok
    shown = [n.event for n in seen if isinstance(n.event, DeckSuspense)]
    assert [(s.message, s.chain) for s in shown] == [("still summing up", ("parent", "child"))]
    assert shown[0].elapsed_ms >= 100
    sent = json.loads(model.requests[2].messages[-1]["content"])
    assert sent["kind"] == "suspense" and sent["trigger"]["reason"] == "timeout"
    assert sent["trigger"]["elapsedMs"] >= 100 and sent["childInput"] == {"topic": "x"}
    assert event_pair(model.requests[3], "zizou_suspense_event")["message"] == "still summing up"

    fast = ScriptedModel(
        [
            {"tool_calls": [call("child", topic="x")]},
            {"tool_calls": [call("return_output", summary="fast")]},
            {"tool_calls": [call("return_output", summary="done")]},
        ]
    )
    seen.clear()
    deck(
        tmp_path,
        "parent",
        actions=[{"path": "child.deck.md"}],
        handlers={"on_suspense": "handler.deck.md"},
        suspense_delay_ms=5000,
    )
    assert (await run(session(tmp_path, fast), "parent", seen.append)).ok
    assert not [n for n in seen if isinstance(n.event, DeckSuspense)]
    assert len(fast.requests) == 3
