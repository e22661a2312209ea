"""The turn's lifecycle is the loop's: every moment is emitted, in order, whatever ends the turn
(done, cancelled, a consumer that stops reading, a bug), and recorders see the same."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from scripted_agent import assert_history_valid, call, collect, make_agent

from zizou.contracts.events import (
    AgentError,
    AnyEvent,
    ModelReplied,
    StepFinished,
    StepStarted,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
)
from zizou.contracts.protocols import Model, ModelRequest
from zizou.sessions import SessionStore


class Recorder:
    """A TurnRecorder that keeps what it is shown."""

    def __init__(self) -> None:
        self.events: list[AnyEvent] = []

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.events.clear()

    def record_request(self, step: int, request: ModelRequest) -> None:
        return None

    def emit(self, event: AnyEvent) -> None:
        self.events.append(event)


def kinds(events: list[Any]) -> list[str]:
    return [type(event).__name__ for event in events if type(event).__name__ != "TextDelta"]


async def test_a_step_finishes_after_its_tools_and_every_moment_comes_in_order(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    replies = [{"tool_calls": [call("read_file", path="a.txt")]}, {"text": "done"}]
    agent, _ = make_agent(tmp_path, replies)
    events = await collect(agent, "go")
    assert kinds(events) == [
        "TurnStarted",
        "StepStarted",
        "StepPlanned",
        "ModelReplied",
        "ToolCallStarted",
        "ToolCallFinished",
        "StepFinished",
        "StepStarted",
        "StepPlanned",
        "ModelReplied",
        "StepFinished",
        "TurnFinished",
    ]
    replied = [e for e in events if isinstance(e, ModelReplied)]
    assert replied[0].tool_calls == ("read_file",) and replied[1].text == "done"


async def test_a_cancelled_turn_ends_with_its_end_events_and_a_session_record(
    tmp_path: Path,
) -> None:
    agent, _ = make_agent(tmp_path, [{"text": "slow", "stall_s": 30, "stall_after": 1}])
    store = SessionStore(tmp_path)
    writer = store.create("s1", "scripted")
    agent.conversation.on_append = writer.append_message
    recorder = Recorder()
    agent.recorders += [writer, recorder]
    seen: list[AnyEvent] = []
    started = asyncio.Event()

    async def consume() -> None:
        async for event in agent.run_turn("hello"):
            seen.append(event)
            if isinstance(event, StepStarted):
                started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    writer.close()
    assert kinds(seen)[-2:] == ["StepFinished", "TurnFinished"]
    end = seen[-1]
    assert isinstance(end, TurnFinished) and end.reason == "cancelled" and end.steps == 1
    assert kinds(recorder.events) == kinds(seen)
    lines = [json.loads(line) for line in store.path("s1").read_text().splitlines()]
    assert lines[-1]["kind"] == "turn" and lines[-1]["reason"] == "cancelled"


async def test_a_consumer_that_stops_reading_still_leaves_the_recorders_an_end(
    tmp_path: Path,
) -> None:
    agent, _ = make_agent(tmp_path, [{"tool_calls": [call("list_dir")]}, {"text": "done"}])
    recorder = Recorder()
    agent.recorders.append(recorder)
    events = agent.run_turn("go")
    async for event in events:
        if isinstance(event, ToolCallStarted):
            break
    await events.aclose()  # type: ignore[attr-defined]
    assert isinstance(recorder.events[-2], StepFinished)
    end = recorder.events[-1]
    assert isinstance(end, TurnFinished) and end.reason == "cancelled"
    assert_history_valid(agent.conversation.messages)


class Exploding(Model):
    id = "openai/exploding"

    def stream(self, request: ModelRequest) -> Any:
        raise KeyError("no such chunk field")


async def test_a_bug_becomes_an_error_event_with_its_traceback_and_an_end(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    agent, _ = make_agent(tmp_path, [])
    agent.model = Exploding()
    with caplog.at_level(logging.ERROR, logger="zizou"):
        events = await collect(agent, "go")
    assert kinds(events) == [
        "TurnStarted",
        "StepStarted",
        "StepPlanned",
        "AgentError",
        "StepFinished",
        "TurnFinished",
    ]
    error = next(e for e in events if isinstance(e, AgentError))
    assert error.message == "zizou failed: KeyError: 'no such chunk field'"
    assert error.detail is not None and "Traceback" in error.detail
    end = events[-1]
    assert isinstance(end, TurnFinished) and (end.reason, end.error_kind) == ("error", "runtime")
    assert "the turn failed" in caplog.text


async def test_two_tool_calls_with_one_id_both_run_and_both_are_answered(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "b.txt").write_text("b\n")
    same = [
        {"id": "call_0", "name": "read_file", "arguments": json.dumps({"path": "a.txt"})},
        {"id": "call_0", "name": "read_file", "arguments": json.dumps({"path": "b.txt"})},
    ]
    agent, _ = make_agent(tmp_path, [{"tool_calls": same}, {"text": "done"}])
    events = await collect(agent, "go")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.ok for e in finished] == [True, True]
    assert len({e.call_id for e in finished}) == 2
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert_history_valid(agent.conversation.messages)


async def test_a_recorder_that_raises_neither_ends_the_turn_nor_starves_the_others(
    tmp_path: Path,
) -> None:
    class Broken(Recorder):
        def emit(self, event: AnyEvent) -> None:
            raise RuntimeError("recorder bug")

    agent, _ = make_agent(tmp_path, [{"text": "done"}])
    healthy = Recorder()
    agent.recorders += [Broken(), healthy]
    events = await collect(agent, "go")
    assert isinstance(events[0], TurnStarted) and isinstance(events[-1], TurnFinished)
    assert kinds(healthy.events) == kinds(events)


async def test_a_server_that_reuses_call_ids_every_step_still_gets_distinct_ones(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    same = {"id": "call_0", "name": "read_file", "arguments": json.dumps({"path": "a.txt"})}
    other = {**same, "arguments": json.dumps({"path": "a.txt", "start_line": 1})}
    agent, _ = make_agent(
        tmp_path, [{"tool_calls": [same]}, {"tool_calls": [other]}, {"text": "ok"}]
    )
    await collect(agent, "go")
    ids = [c.id for r in agent.conversation.records for c in getattr(r, "tool_calls", ())]
    assert len(ids) == len(set(ids)) == 2
    assert_history_valid(agent.conversation.messages)
