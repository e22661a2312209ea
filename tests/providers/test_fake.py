"""ScriptedModel: the deterministic, network-free Model that loop and UI tests inject."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from waiting import until

from zizou.contracts.protocols import Model, ModelReply, ModelRequest, TextPiece
from zizou.errors import ProviderError
from zizou.providers import ScriptedModel
from zizou.providers.fake import split_text

REQUEST = ModelRequest(system="sys", messages=[{"role": "user", "content": "hi"}], tools=[])


async def collect(model: ScriptedModel, request: ModelRequest = REQUEST) -> list[Any]:
    return [event async for event in model.stream(request)]


def test_it_is_a_model() -> None:
    assert isinstance(ScriptedModel(), Model)
    assert ScriptedModel(id="fake/model").id == "fake/model"


async def test_text_arrives_in_pieces_then_the_whole_reply() -> None:
    model = ScriptedModel([{"text": "Hello, world!", "prompt_tokens": 5, "completion_tokens": 2}])
    events = await collect(model)
    pieces, reply = events[:-1], events[-1]
    assert len(pieces) == 3 and all(isinstance(p, TextPiece) for p in pieces)
    assert isinstance(reply, ModelReply)
    assert "".join(p.text for p in pieces) == reply.text == "Hello, world!"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (5, 2)
    assert reply.finish_reason == "stop" and reply.tool_calls == ()
    assert model.requests == [REQUEST]


async def test_tool_calls_get_deterministic_ids_and_raw_arguments() -> None:
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.py"}}]},
            {
                "text": "two",
                "tool_calls": [
                    {"name": "glob", "arguments": '{"pattern": "*.py"'},  # malformed on purpose
                    {"name": "grep", "id": "mine"},
                ],
            },
        ]
    )
    first = (await collect(model))[-1]
    second = (await collect(model))[-1]
    assert [(c.id, c.name, json.loads(c.arguments)) for c in first.tool_calls] == [
        ("call_1", "read_file", {"path": "a.py"})
    ]
    assert [(c.id, c.name, c.arguments) for c in second.tool_calls] == [
        ("call_2", "glob", '{"pattern": "*.py"'),
        ("mine", "grep", "{}"),
    ]
    assert first.finish_reason == second.finish_reason == "tool_calls"
    assert first.text == ""


async def test_usage_is_estimated_from_characters() -> None:
    reply = (await collect(ScriptedModel([{"text": "x" * 40}])))[-1]
    assert reply.usage.output_tokens == 10 and reply.usage.input_tokens > 0
    assert reply.usage.cost_usd is None


@pytest.mark.parametrize(
    ("scripted", "retryable", "status", "retry_after"),
    [
        ({"status": 429, "retry_after": 1}, True, 429, 1),
        ({"status": 500}, True, 500, None),
        ({"status": 401, "error": "bad key"}, False, 401, None),
        ({"error": "boom", "retryable": True}, True, None, None),
    ],
)
async def test_errors_are_raised_as_provider_errors(
    scripted: dict[str, Any], retryable: bool, status: int | None, retry_after: float | None
) -> None:
    with pytest.raises(ProviderError) as info:
        await collect(ScriptedModel([scripted]))
    err = info.value
    assert (err.retryable, err.status, err.retry_after) == (retryable, status, retry_after)
    if "error" in scripted:
        assert str(err) == scripted["error"]


async def test_a_provider_error_in_the_script_is_raised_as_is() -> None:
    error = ProviderError("custom", retryable=True)
    with pytest.raises(ProviderError) as info:
        await collect(ScriptedModel([error]))
    assert info.value is error


async def test_a_truncated_reply_streams_its_text_then_fails() -> None:
    model = ScriptedModel([{"text": "half", "truncate": True}])
    seen: list[Any] = []
    with pytest.raises(ProviderError) as info:
        async for event in model.stream(REQUEST):
            seen.append(event)
    assert info.value.retryable and "".join(p.text for p in seen) == "half"


async def test_running_out_of_script_fails_loudly() -> None:
    model = ScriptedModel([{"text": "only one"}])
    await collect(model)
    with pytest.raises(ProviderError, match="script exhausted"):
        await collect(model)
    assert len(model.requests) == 2 and model.remaining == 0


async def test_a_stalled_stream_can_be_cancelled() -> None:
    model = ScriptedModel([{"text": "abcdef", "stall_s": 60}])

    async def consume(seen: list[Any]) -> None:
        async for event in model.stream(REQUEST):
            seen.append(event)

    seen: list[Any] = []
    task = asyncio.create_task(consume(seen))
    await until(lambda: seen, "the first piece")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == [TextPiece("ab")]


async def test_replies_can_be_added_later() -> None:
    model = ScriptedModel()
    model.add({"text": "later"})
    assert (await collect(model))[-1].text == "later"


def test_unknown_keys_are_rejected() -> None:
    with pytest.raises(ValueError, match="unknown reply keys"):
        ScriptedModel([{"txt": "typo"}])


def test_split_text() -> None:
    assert split_text("abcdefg", 3) == ["abc", "def", "g"]
    assert split_text("ab", 5) == ["a", "b"]
    assert split_text("", 3) == []
