"""The runaway guards and the spending cap in the loop: each stops the turn with a message that
names its setting, and leaves a valid history."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from scripted_agent import assert_history_valid, call, collect, make_agent

from zizou.agent.spending import SpendCaps, Spending
from zizou.contracts.events import BudgetWarning, Retrying, ToolCallFinished, TurnFinished, Usage
from zizou.contracts.protocols import Model, ModelEvent, ModelReply, ModelRequest, ToolCall
from zizou.errors import ShorteningRefused
from zizou.providers.fake import ScriptedModel


def finished_of(events: list[Any]) -> TurnFinished:
    finished = events[-1]
    assert isinstance(finished, TurnFinished)
    return finished


async def test_the_same_call_stops_the_turn_only_when_repeated_in_a_row(tmp_path: Path) -> None:
    a = {"tool_calls": [call("list_dir", path=".")]}
    b = {"tool_calls": [call("glob", pattern="*")]}
    agent, model = make_agent(tmp_path, [a, b, a, b, a, b, {"text": "done"}])
    events = await collect(agent, "go")
    assert finished_of(events).reason == "done"  # each call three times, never twice in a row
    model.add(a, a, a, {"text": "never"})
    events = await collect(agent, "again")
    finished = finished_of(events)
    assert finished.reason == "loop_guard" and "3 times in a row" in (finished.message or "")
    assert "max_repeated_calls" in (finished.message or "")
    assert model.remaining == 1
    assert_history_valid(agent.conversation.messages)


async def test_max_repeated_calls_is_a_setting(tmp_path: Path) -> None:
    a = {"tool_calls": [call("list_dir", path=".")]}
    agent, model = make_agent(tmp_path, [a, a, {"text": "never"}])
    agent.config = agent.config.model_copy(update={"loop_guard_repeats": 2})
    events = await collect(agent, "go")
    assert finished_of(events).reason == "loop_guard"
    assert sum(isinstance(e, ToolCallFinished) for e in events) == 1
    assert model.remaining == 1


async def test_the_spending_cap_stops_the_turn_before_the_call_that_would_cross_it(
    tmp_path: Path,
) -> None:
    step = {"tool_calls": [call("list_dir", path=".")], "cost_usd": 0.004}
    spending = Spending(SpendCaps(max_usd=0.01), lambda model_id: Price())
    replies = [step, {**step, "cost_usd": 0.0041}, {"text": "never"}]
    agent, model = make_agent(tmp_path, replies, spending=spending)
    events = await collect(agent, "go")
    finished = finished_of(events)
    assert finished.reason == "budget" and finished.steps == 2  # the refused one is no step
    assert len(model.requests) == 2  # the third call was never made
    assert "spending cap of $0.0100" in (finished.message or "")
    assert "$0.0081 spent" in (finished.message or "")
    [warning] = [e for e in events if isinstance(e, BudgetWarning)]
    assert warning.message.startswith("81% of the spending cap")
    assert all(r.max_output_tokens is not None for r in model.requests)
    assert_history_valid(agent.conversation.messages)


class Price:
    input_cost_per_token = 1e-9
    output_cost_per_token = 1e-5
    max_output_tokens = 16_384


async def test_the_model_calls_of_a_turn_are_capped(tmp_path: Path) -> None:
    steps = [{"tool_calls": [call("glob", pattern=f"*{n}")]} for n in range(5)]
    spending = Spending(SpendCaps(max_calls_per_turn=3))
    # the spending is a recorder too: a new count each turn
    agent, model = make_agent(tmp_path, steps, spending=spending, recorders=[spending])
    finished = finished_of(await collect(agent, "go"))
    assert finished.reason == "loop_guard" and len(model.requests) == 3
    assert "3 model calls" in (finished.message or "")
    model.add({"text": "fine"})
    assert finished_of(await collect(agent, "next")).reason == "done"


class Overflowing(Model):
    """Every request overflows and is shortened (the retry layer's Retrying with the history
    it resends), until the turn may shorten no more: then the overflow stands."""

    id = "overflowing"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if not request.may_shorten:
            raise ShorteningRefused("the conversation is too long for the context window")
        yield Retrying(2, 0.0, "too long; dropped older tool outputs", tuple(request.messages))
        number = len(self.requests)
        calls = (ToolCall(f"c{number}", "glob", f'{{"pattern": "*{number}"}}'),)
        yield ModelReply("", calls, Usage(10, 1), "tool_calls")


async def test_automatic_compaction_happens_at_most_twice_per_turn(tmp_path: Path) -> None:
    model = Overflowing()
    agent, _ = make_agent(tmp_path, [], model=ScriptedModel())
    agent.model = model
    finished = finished_of(await collect(agent, "go"))
    assert finished.reason == "loop_guard"
    assert [r.may_shorten for r in model.requests] == [True, True, False]
    assert "compacted 2 times in this turn" in (finished.message or "")
    assert "max_compactions_per_turn" in (finished.message or "")
    assert_history_valid(agent.conversation.messages)
    agent.config = agent.config.model_copy(update={"max_compactions": 0})
    model.requests.clear()
    finished = finished_of(await collect(agent, "again"))
    assert finished.reason == "loop_guard" and len(model.requests) == 1
