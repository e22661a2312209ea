"""The loop with the scripted model: steps, caps, the loop guard, cancellation, approvals."""

from __future__ import annotations

import asyncio
import re
import threading
from pathlib import Path

import pytest
from scripted_agent import assert_history_valid, call, collect, make_agent
from waiting import until

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.permissions import Rules
from zizou.agent.prompt import CompiledPrompt
from zizou.contracts.events import (
    AgentError,
    Event,
    PermissionRequested,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    TurnFinished,
)
from zizou.contracts.protocols import Approval
from zizou.errors import ProviderError
from zizou.providers.fake import ScriptedModel


async def test_a_plain_answer_streams_and_finishes(tmp_path: Path) -> None:
    agent, model = make_agent(tmp_path, [{"text": "hello there", "pieces": 3}])
    events = await collect(agent, "hi")
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert len(deltas) == 3 and "".join(deltas) == "hello there"
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    assert (finished.reason, finished.text, finished.steps) == ("done", "hello there", 1)
    assert model.requests[0].messages == [{"role": "user", "content": "hi"}]


async def test_the_prompt_is_rendered_afresh_at_every_step(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("PINNED-CONTENT v1\n")
    replies = [{"tool_calls": [call("add_context", path="notes.txt")]}, {"text": "ok"}]
    agent, model = make_agent(tmp_path, replies)
    await collect(agent, "pin it")
    assert "PINNED-CONTENT" not in model.requests[0].system
    assert "PINNED-CONTENT v1" in model.requests[1].system
    (tmp_path / "notes.txt").write_text("PINNED-CONTENT v2\n")
    model.add({"text": "again"})
    await collect(agent, "again")
    assert "PINNED-CONTENT v2" in model.requests[2].system


async def test_the_prompt_is_rendered_while_the_event_loop_runs_on(tmp_path: Path) -> None:
    """A slow prompt (a cold repo map of a large repository) leaves the loop free: here the
    render waits for a signal that only the event loop can give."""
    agent, model = make_agent(tmp_path, [{"text": "ok"}])
    started, released = threading.Event(), threading.Event()
    render = agent.prompt.render

    def slow_render(hooks: tuple[tuple[str, str], ...] = (), **more: int) -> CompiledPrompt:
        started.set()
        if not released.wait(10):
            raise AssertionError("the event loop was blocked while the prompt rendered")
        return render(hooks, **more)

    agent.prompt.render = slow_render  # type: ignore[method-assign]

    async def release() -> None:
        await until(started.is_set, "the render to start")
        released.set()

    events, _ = await asyncio.gather(collect(agent, "hi"), release())
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert model.requests[0].system == render().text


async def test_the_step_cap_stops_the_turn_with_valid_history(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("glob", pattern="*")]},
    ]
    agent, _ = make_agent(tmp_path, replies, max_steps=2)
    events = await collect(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "max_steps"
    assert finished.steps == 2 and finished.message and "step cap" in finished.message
    assert_history_valid(agent.conversation.messages)


async def test_the_loop_guard_stops_the_third_identical_call(tmp_path: Path) -> None:
    same = {"tool_calls": [call("list_dir", path=".")]}
    agent, model = make_agent(tmp_path, [same, same, same, {"text": "never"}])
    events = await collect(agent, "go")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "loop_guard"
    assert "same arguments 3 times" in (finished.message or "")
    assert sum(isinstance(e, ToolCallFinished) for e in events) == 2
    assert model.remaining == 1
    assert_history_valid(agent.conversation.messages)


async def test_asking_again_how_a_job_stands_is_no_loop(tmp_path: Path) -> None:
    poll = {"tool_calls": [call("job_output", id="c1")]}  # the same call, the same answer
    start = {"tool_calls": [call("run_bash", command="sleep 30", background=True)]}
    agent, _ = make_agent(
        tmp_path, [start, poll, poll, poll, {"text": "still running"}], rules=Rules(yes=True)
    )
    try:
        events = await collect(agent, "start it and watch it")
    finally:
        agent.runner.ctx.jobs.close()
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "done", finished.message
    outputs = [e.output for e in events if isinstance(e, ToolCallFinished)]
    assert len(outputs) == 4 and all(o.startswith("job c1: running") for o in outputs)


async def test_a_provider_error_ends_the_turn_with_an_error_event(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [ProviderError("the key was rejected")])
    events = await collect(agent, "hi")
    assert any(isinstance(e, AgentError) and "rejected" in e.message for e in events)
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "error"
    assert agent.conversation.messages == [{"role": "user", "content": "hi"}]


async def test_cancel_during_a_stalled_stream_keeps_history_valid(tmp_path: Path) -> None:
    replies = [{"tool_calls": [call("list_dir", path=".")]}, {"text": "slow", "stall_s": 30}]
    agent, _ = make_agent(tmp_path, replies)
    seen: list[Event] = []

    async def consume() -> None:
        async for event in agent.run_turn("go"):
            seen.append(event)

    task = asyncio.create_task(consume())
    await until(lambda: sum(isinstance(e, StepStarted) for e in seen) == 2, "the second step")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_history_valid(agent.conversation.messages)


async def test_cancel_during_a_command_answers_every_call(tmp_path: Path) -> None:
    replies = [
        {
            "tool_calls": [
                call("run_bash", command="touch started; sleep 30"),
                call("list_dir", path="."),
            ]
        },
        {"text": "never"},
    ]
    agent, _ = make_agent(tmp_path, replies, rules=Rules(yes=True))
    task = asyncio.create_task(collect(agent, "go"))
    await until((tmp_path / "started").exists, "the command to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert_history_valid(agent.conversation.messages)
    tool_messages = [m for m in agent.conversation.messages if m["role"] == "tool"]
    assert len(tool_messages) == 2
    # It ran: the command's own account ("[interrupted after"), or the runner's when the stop
    # came as it started.
    assert re.match(r"Error: \[?interrupted after \d+\.\d s", tool_messages[0]["content"])
    assert tool_messages[1]["content"] == "not run: the turn was cancelled"  # list_dir
    assert agent.conversation.messages[-1]["role"] == "tool"
    model = agent.model
    assert isinstance(model, ScriptedModel) and model.remaining == 1


@pytest.mark.parametrize(("verdict", "ran"), [("once", True), ("always", True), ("deny", False)])
async def test_approvals_decide_whether_a_command_runs(
    tmp_path: Path, verdict: str, ran: bool
) -> None:
    command = "touch made-it"
    replies = [{"tool_calls": [call("run_bash", command=command)]}, {"text": "ok"}]
    approver = ScriptedApprover([Approval(verdict, "not now")])  # type: ignore[arg-type]
    agent, model = make_agent(tmp_path, replies, approver=approver)
    events = await collect(agent, "go")
    asked = [e for e in events if isinstance(e, PermissionRequested)]
    assert len(asked) == 1 and asked[0].summary == command
    assert approver.requests[0].suggested_rules == ("touch",)
    assert (tmp_path / "made-it").exists() == ran
    result = model.requests[1].messages[-1]["content"]
    assert ("not approve" in result and "not now" in result) != ran
    assert ("touch" in agent.runner.rules.bash_prefixes) == (verdict == "always")


async def test_always_allow_skips_the_second_ask(tmp_path: Path) -> None:
    replies = [
        {"tool_calls": [call("run_bash", command="echo one")]},
        {"tool_calls": [call("run_bash", command="echo two")]},
        {"text": "ok"},
    ]
    approver = ScriptedApprover([Approval("always")])
    agent, _ = make_agent(tmp_path, replies, approver=approver)
    events = await collect(agent, "go")
    assert len(approver.requests) == 1
    assert [e.ok for e in events if isinstance(e, ToolCallFinished)] == [True, True]
