"""The retry layer with the scripted model: attempts, backoff, Retry-After, cancellation and the
one compaction after a context overflow. No network and no real waiting."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest

from zizou.contracts.compaction import TOOL_PLACEHOLDER, TURN_PLACEHOLDER
from zizou.contracts.events import Retrying
from zizou.contracts.protocols import Model, ModelReply, ModelRequest, TextPiece
from zizou.errors import ProviderError, ShorteningRefused
from zizou.providers import ScriptedModel
from zizou.providers.errors import ContextOverflowError
from zizou.providers.retry import RetryingModel
from zizou.providers.settings import RetrySettings

REQUEST = ModelRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
NOW = datetime(2025, 11, 22, 14, 0, 0)


class Sleeps:
    """Records the waits instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def retrying(
    replies: list[Any], rand: float = 0.5, **policy: Any
) -> tuple[RetryingModel, ScriptedModel, Sleeps]:
    inner = ScriptedModel(replies, id="openai/gpt-4o")
    sleeps = Sleeps()
    model = RetryingModel(
        inner,
        RetrySettings(**policy),
        sleep=sleeps,
        rand=lambda: rand,
        now=lambda: NOW,
    )
    return model, inner, sleeps


async def collect(model: Model, request: ModelRequest = REQUEST) -> list[Any]:
    return [event async for event in model.stream(request)]


async def failure(model: Model, request: ModelRequest = REQUEST) -> ProviderError:
    with pytest.raises(ProviderError) as info:
        await collect(model, request)
    return info.value


def retries(events: list[Any]) -> list[Retrying]:
    return [e for e in events if isinstance(e, Retrying)]


async def test_a_good_reply_passes_straight_through() -> None:
    model, inner, sleeps = retrying([{"text": "hello"}])
    events = await collect(model)
    assert isinstance(model, Model) and model.id == inner.id == "openai/gpt-4o"
    assert not retries(events) and events[-1].text == "hello"
    assert len(inner.requests) == 1 and sleeps.delays == []


async def test_retryable_errors_are_retried_until_a_reply_comes() -> None:
    model, inner, sleeps = retrying([{"status": 503}, {"status": 429}, {"text": "ok"}])
    events = await collect(model)
    assert events[-1] == ModelReply("ok", usage=events[-1].usage, finish_reason="stop")
    assert [(r.attempt, r.delay_s) for r in retries(events)] == [(2, 0.5), (3, 1.0)]
    assert len(inner.requests) == 3 and sleeps.delays == [0.5, 1.0]


async def test_it_gives_up_after_max_attempts_and_says_so() -> None:
    model, inner, sleeps = retrying([{"status": 500, "error": "boom; try later"}] * 6)
    err = await failure(model)
    assert len(inner.requests) == 5 and len(sleeps.delays) == 4
    assert str(err).startswith("gave up after 5 attempts: boom") and err.status == 500


async def test_max_attempts_comes_from_the_settings() -> None:
    model, inner, _ = retrying([{"status": 500}] * 3, max_attempts=2)
    await failure(model)
    assert len(inner.requests) == 2


async def test_backoff_is_exponential_full_jitter_under_a_cap() -> None:
    model, _, sleeps = retrying([{"status": 502}] * 5, rand=0.5, base_delay_s=10, max_delay_s=30)
    await failure(model)
    assert sleeps.delays == [5.0, 10.0, 15.0, 15.0]  # 0.5 x min(30, 10, 20, 40, 80)


async def test_jitter_can_be_anywhere_from_zero_to_the_ceiling() -> None:
    model, _, sleeps = retrying([{"status": 500}, {"text": "ok"}], rand=0.0)
    events = await collect(model)
    assert retries(events)[0].delay_s == 0.0 and sleeps.delays == []  # no wait at all
    assert "retrying now (attempt 2 of 5)" in retries(events)[0].reason


async def test_retry_after_is_the_delay_instead_of_the_jitter() -> None:
    rate_limited = ProviderError(
        "rate limited by openai (429); wait, or check your plan's limits (Rate limit reached.)",
        retryable=True,
        status=429,
        retry_after=12,
    )
    model, _, sleeps = retrying([rate_limited, {"text": "ok"}], rand=0.01)
    events = await collect(model)
    assert sleeps.delays == [12]
    assert retries(events) == [
        Retrying(2, 12, "rate limited by openai (429), retrying in 12 s (attempt 2 of 5)")
    ]


@pytest.mark.parametrize(
    ("wait", "shown"),
    [(12.4, "in 12 s"), (2.5, "in 2.5 s"), (1.0, "in 1 s"), (0.05, "in 0.05 s"), (0.001, "now")],
)
async def test_waits_are_shown_readably(wait: float, shown: str) -> None:
    model, _, _ = retrying([{"status": 503, "retry_after": wait}, {"text": "ok"}])
    [notice] = retries(await collect(model))
    assert notice.delay_s == wait and f"retrying {shown} (attempt 2 of 5)" in notice.reason


async def test_retry_after_up_to_the_limit_is_honoured() -> None:
    model, _, sleeps = retrying([{"status": 429, "retry_after": 60}, {"text": "ok"}])
    await collect(model)
    assert sleeps.delays == [60]


async def test_a_longer_retry_after_stops_at_once_and_says_when_to_try_again() -> None:
    model, inner, sleeps = retrying([{"status": 429, "retry_after": 300}, {"text": "ok"}])
    err = await failure(model)
    assert len(inner.requests) == 1 and sleeps.delays == []
    assert str(err) == "openai asked to wait 300 s (429); try again after 14:05"
    assert not err.retryable and err.retry_after == 300


async def test_the_time_to_try_again_is_rounded_up_to_the_minute() -> None:
    model, _, _ = retrying([{"status": 503, "retry_after": 61}], max_retry_after_s=30)
    assert str(await failure(model)).endswith("try again after 14:02")


@pytest.mark.parametrize("status", [400, 401, 403, 404, 413, 422])
async def test_errors_that_retrying_cannot_fix_are_raised_at_once(status: int) -> None:
    original = ProviderError(f"no ({status})", status=status)
    model, inner, sleeps = retrying([original, {"text": "never"}])
    assert await failure(model) is original
    assert len(inner.requests) == 1 and sleeps.delays == []


async def test_a_lasting_error_after_retries_says_how_many_attempts_were_made() -> None:
    rejected = ProviderError("the key for openai was rejected; run `zizou keys set openai`")
    model, inner, _ = retrying([{"status": 500}, rejected])
    err = await failure(model)
    assert str(err) == f"{rejected} (after 2 attempts)" and err.__cause__ is rejected
    assert len(inner.requests) == 2


async def test_text_from_a_failed_attempt_is_followed_by_a_retrying_event() -> None:
    model, _, _ = retrying([{"text": "half an ans", "truncate": True}, {"text": "whole answer"}])
    events = await collect(model)
    kinds = [type(e).__name__ for e in events]
    first_retry = kinds.index("Retrying")
    assert "TextPiece" in kinds[:first_retry]
    after = events[first_retry + 1 :]
    assert "".join(e.text for e in after if isinstance(e, TextPiece)) == "whole answer"
    assert events[-1].text == "whole answer"


async def test_tool_calls_of_a_truncated_stream_never_come_out() -> None:
    truncated = {"tool_calls": [{"name": "run_bash", "arguments": {"command": "rm x"}}]}
    model, _, _ = retrying([{**truncated, "truncate": True}, {"text": "done"}])
    events = await collect(model)
    replies = [e for e in events if isinstance(e, ModelReply)]
    assert len(replies) == 1 and replies[0].tool_calls == () and replies[0].text == "done"


async def test_a_cancel_during_the_backoff_stops_everything() -> None:
    waiting = asyncio.Event()

    async def sleep(delay: float) -> None:
        waiting.set()
        await asyncio.sleep(3600)

    inner = ScriptedModel([{"status": 429, "retry_after": 30}, {"text": "never"}])
    model = RetryingModel(inner, RetrySettings(), sleep=sleep)
    seen: list[Any] = []

    async def consume() -> None:
        async for event in model.stream(REQUEST):
            seen.append(event)

    task = asyncio.create_task(consume())
    await asyncio.wait_for(waiting.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [type(e) for e in seen] == [Retrying] and len(inner.requests) == 1


async def test_the_real_sleep_is_used_by_default() -> None:
    inner = ScriptedModel([{"status": 500}, {"text": "ok"}])
    model = RetryingModel(inner, RetrySettings(base_delay_s=0.01))
    events = await collect(model)
    assert events[-1].text == "ok" and 0 <= retries(events)[0].delay_s <= 0.01


def history(output_size: int = 4000) -> list[dict[str, Any]]:
    def step(call_id: str) -> list[dict[str, Any]]:
        call = {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}
        return [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call_id, "content": "x" * output_size},
        ]

    return [
        {"role": "user", "content": "first task"},
        *step("c1"),
        {"role": "assistant", "content": "did the first"},
        {"role": "user", "content": "second task"},
        *step("c2"),
        *step("c3"),
    ]


def overflow(window: int | None = 1000) -> ContextOverflowError:
    return ContextOverflowError(
        "the conversation is too long for openai/gpt-4o's context window; start a new session "
        "or unpin files (maximum context length is 1000 tokens)",
        context_window=window,
    )


async def test_an_overflow_is_compacted_once_and_sent_again_at_once() -> None:
    model, inner, sleeps = retrying([overflow(), {"text": "fits now"}])
    request = ModelRequest(system="s", messages=history(), tools=[])
    events = await collect(model, request)
    assert events[-1].text == "fits now" and sleeps.delays == []
    [notice] = retries(events)
    assert notice.attempt == 2 and notice.delay_s == 0
    assert "dropped older tool outputs and turns, retrying now" in notice.reason
    first, second = inner.requests
    assert first.messages == history()  # the conversation itself is left alone
    assert second.messages[:2] == [
        {"role": "user", "content": "first task"},
        {"role": "assistant", "content": TURN_PLACEHOLDER},
    ]
    assert (
        second.messages[2:]
        == [
            *history()[4:6],  # the last user message and the current turn's first call
            {**history()[6], "content": TOOL_PLACEHOLDER},  # its output, from an earlier step
            *history()[7:],  # the latest step is intact
        ]
    )


async def test_a_second_overflow_stops_with_the_token_counts() -> None:
    model, inner, _ = retrying([overflow(), overflow(), {"text": "never"}])
    err = await failure(model, ModelRequest(system="s", messages=history(), tools=[]))
    assert len(inner.requests) == 2
    assert "still too long after dropping older tool outputs and turns" in str(err)
    assert "about " in str(err) and "tokens" in str(err)
    assert "context window of openai/gpt-4o holds 1,000" in str(err)


async def test_an_overflow_with_nothing_to_drop_stops_at_once() -> None:
    big = ModelRequest(system="s", messages=[{"role": "user", "content": "y" * 8000}], tools=[])
    model, inner, _ = retrying([overflow(window=None), {"text": "never"}])
    err = await failure(model, big)
    assert len(inner.requests) == 1
    assert "about 2,0" in str(err) and "context window of openai/gpt-4o is unknown" in str(err)
    assert "nothing older can be dropped" in str(err) and "new session" in str(err)


async def test_an_overflow_the_turn_may_not_shorten_stops_at_once() -> None:
    model, inner, _ = retrying([overflow(), {"text": "never"}])
    request = ModelRequest(system="s", messages=history(), tools=[], may_shorten=False)
    err = await failure(model, request)
    assert isinstance(err, ShorteningRefused) and len(inner.requests) == 1
