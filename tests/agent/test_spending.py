"""The run's spending: the caps checked before each call from the spend so far and the
request's size, the reply limited to the room left, the gate that may raise a cap, the warning
at 80%, and the per-turn cap on model calls."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zizou.agent.guards import StopTurn
from zizou.agent.spending import (
    MIN_REPLY_TOKENS,
    Metered,
    OverBudget,
    OverCap,
    SpendCaps,
    Spending,
    request_tokens,
)
from zizou.contracts.events import Usage
from zizou.contracts.protocols import ModelReply, ModelRequest
from zizou.providers.fake import ScriptedModel


@dataclass(frozen=True)
class Price:
    input_cost_per_token: float | None = 2.5e-6  # gpt-4o's
    output_cost_per_token: float | None = 1e-5
    max_output_tokens: int | None = 16_384


def priced(model_id: str) -> Price | None:
    return Price() if model_id == "priced" else None


def request(chars: int = 4_000) -> ModelRequest:
    return ModelRequest("s", [{"role": "user", "content": "x" * chars}], [])


class Gate:
    def __init__(self, answer: float | None) -> None:
        self.answer = answer
        self.asked: list[OverCap] = []

    async def over_cap(self, over: OverCap) -> float | None:
        self.asked.append(over)
        return self.answer


async def test_without_caps_a_request_goes_out_as_it_is() -> None:
    spending = Spending(SpendCaps(), priced)
    sent = request()
    assert await spending.admit("priced", sent) is sent
    assert spending.share() is None


async def test_a_dollar_cap_stops_before_the_call_that_would_cross_it() -> None:
    spending = Spending(SpendCaps(max_usd=0.01), priced)
    size = request_tokens(request())  # about a thousand tokens: $0.0025 of input
    spending.record("priced", Usage(size, 200, cost_usd=0.004))
    admitted = await spending.admit("priced", request())  # $0.0025 in, room for ~350 out
    assert admitted.max_output_tokens is not None and admitted.max_output_tokens < 400
    spending.record("priced", Usage(size, 200, cost_usd=0.0055))  # $0.0095 spent
    with pytest.raises(OverBudget) as stopped:
        await spending.admit("priced", request())
    message = str(stopped.value)
    assert stopped.value.reason == "budget"
    assert "cap of $0.0100" in message and "$0.0095 spent" in message
    assert "--max-budget-usd" in message and "max_budget_usd" in message


async def test_the_reply_is_limited_to_the_room_the_cap_leaves() -> None:
    spending = Spending(SpendCaps(max_usd=0.02), priced)
    sent = request(400)
    admitted = await spending.admit("priced", sent)
    input_cost = request_tokens(sent) * 2.5e-6
    assert admitted.max_output_tokens == int((0.02 - input_cost) / 1e-5)
    assert admitted.messages == sent.messages
    roomy = await Spending(SpendCaps(max_usd=100.0), priced).admit("priced", sent)
    assert roomy.max_output_tokens is None  # the model's own maximum is below the room


async def test_a_call_needs_room_for_a_useful_reply() -> None:
    size = request_tokens(request())
    spending = Spending(SpendCaps(max_tokens=size + MIN_REPLY_TOKENS - 1))
    with pytest.raises(OverBudget, match="--max-tokens"):
        await spending.admit("local", request())
    spending = Spending(SpendCaps(max_tokens=size + MIN_REPLY_TOKENS))
    admitted = await spending.admit("local", request())
    assert admitted.max_output_tokens == MIN_REPLY_TOKENS


async def test_a_token_cap_counts_input_and_output() -> None:
    spending = Spending(SpendCaps(max_tokens=10_000))
    spending.record("local", Usage(6_000, 3_000))
    assert spending.tokens == 9_000
    with pytest.raises(OverBudget) as stopped:
        await spending.admit("local", request())
    assert "9,000 tokens spent" in str(stopped.value) and "10,000 tokens" in str(stopped.value)


async def test_a_dollar_cap_on_a_model_without_a_price_names_the_token_cap() -> None:
    spending = Spending(SpendCaps(max_usd=1.0), priced)
    with pytest.raises(OverBudget) as stopped:
        await spending.admit("unknown/model", request())
    assert "does not know the price of unknown/model" in str(stopped.value)
    assert "--max-tokens" in str(stopped.value)


async def test_the_gate_may_raise_the_cap_or_stop() -> None:
    gate = Gate(0.05)
    spending = Spending(SpendCaps(max_usd=0.001), priced, gate)
    admitted = await spending.admit("priced", request())
    [asked] = gate.asked
    assert (asked.unit, asked.cap, asked.model) == ("usd", 0.001, "priced")
    assert asked.suggested >= 0.002 and round(asked.suggested, 2) == asked.suggested
    tokens = OverCap("tokens", 20_000, 16_200, 7_157, "m", 7_157)
    assert tokens.suggested == 45_000  # room for a few more calls, in round thousands
    assert spending.caps.max_usd == 0.05 and admitted.max_output_tokens is not None
    refusing = Spending(SpendCaps(max_usd=0.001), priced, Gate(None))
    with pytest.raises(OverBudget):
        await refusing.admit("priced", request())
    lower = Spending(SpendCaps(max_usd=0.001), priced, Gate(0.0005))  # not a raise: a stop
    with pytest.raises(OverBudget):
        await lower.admit("priced", request())


async def test_the_warning_comes_once_past_80_percent_and_again_after_a_raise() -> None:
    spending = Spending(SpendCaps(max_usd=1.0), priced, Gate(2.0))
    spending.record("priced", Usage(10, 10, cost_usd=0.5))
    assert spending.take_warning() is None
    spending.record("priced", Usage(10, 10, cost_usd=0.35))
    warning = spending.take_warning()
    assert warning is not None and warning.message.startswith("85% of the spending cap")
    assert (warning.spent_usd, warning.max_usd) == (pytest.approx(0.85), 1.0)
    spending.record("priced", Usage(10, 10, cost_usd=0.01))
    assert spending.take_warning() is None  # said once
    spending.record("priced", Usage(10, 10, cost_usd=0.14))  # $1.00: the next call asks
    await spending.admit("priced", request())
    assert spending.caps.max_usd == 2.0 and spending.take_warning() is None  # 50% of $2
    spending.record("priced", Usage(10, 10, cost_usd=0.7))
    warning = spending.take_warning()
    assert warning is not None and "of $2.00" in warning.message


def test_a_reply_without_a_cost_is_priced_from_the_model_map() -> None:
    spending = Spending(SpendCaps(), priced)
    spending.record("priced", Usage(1_000, 100))
    assert spending.spent_usd == pytest.approx(1_000 * 2.5e-6 + 100 * 1e-5)
    spending.record("unknown", Usage(1_000, 100))
    assert spending.usage.input_tokens == 2_000 and spending.spent_usd == pytest.approx(0.0035)


async def test_the_model_calls_of_a_turn_are_capped_and_counted_again_each_turn() -> None:
    spending = Spending(SpendCaps(max_calls_per_turn=2))
    await spending.admit("m", request())
    await spending.admit("m", request())
    with pytest.raises(StopTurn) as stopped:
        await spending.admit("m", request())
    assert stopped.value.reason == "loop_guard" and spending.calls_spent
    assert "2 model calls" in str(stopped.value)
    assert "max_model_calls_per_turn" in str(stopped.value)
    spending.begin_turn("next", [])
    await spending.admit("m", request())


async def test_a_metered_model_is_admitted_first_and_counted_after() -> None:
    spending = Spending(SpendCaps(max_calls_per_turn=1))
    inner = ScriptedModel([{"text": "one", "prompt_tokens": 10, "completion_tokens": 3}])
    metered = Metered(inner, spending)
    items = [item async for item in metered.stream(request())]
    assert isinstance(items[-1], ModelReply)
    assert spending.usage == Usage(10, 3) and spending.turn_calls == 1
    with pytest.raises(StopTurn):
        [item async for item in metered.stream(request())]
    assert len(inner.requests) == 1  # the refused call never reached the model


def test_a_new_conversation_goes_on_from_the_runs_spend() -> None:
    old = Spending(SpendCaps(max_usd=3.0), priced)
    old.record("priced", Usage(10, 10, cost_usd=1.25))
    new = Spending(SpendCaps(max_usd=1.0), priced)
    new.carry(old)
    assert (new.spent_usd, new.caps.max_usd, new.usage) == (1.25, 3.0, Usage(10, 10, 1.25))
