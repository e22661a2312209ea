"""Compaction is pure: what it drops, in which order, and that the history stays valid."""

from __future__ import annotations

import copy
from typing import Any

from zizou.contracts.compaction import (
    TOOL_PLACEHOLDER,
    TURN_PLACEHOLDER,
    compact,
    estimate_tokens,
)

BIG = "x" * 4000  # about 1000 tokens


def step(call_id: str, output: str = BIG) -> list[dict[str, Any]]:
    call = {"id": call_id, "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
    return [
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": output},
    ]


def conversation() -> list[dict[str, Any]]:
    """Two finished turns with tool output, then the current turn two steps in."""
    return [
        {"role": "user", "content": "turn one"},
        *step("a1"),
        {"role": "assistant", "content": "one done"},
        {"role": "user", "content": "turn two"},
        *step("b1"),
        *step("b2"),
        {"role": "assistant", "content": "two done"},
        {"role": "user", "content": "turn three"},
        *step("c1"),
        *step("c2"),
    ]


def assert_valid(messages: list[dict[str, Any]]) -> None:
    """Every tool call is answered exactly once, before the next user or assistant message."""
    pending: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            pending.remove(message["tool_call_id"])
            continue
        assert not pending, f"unanswered calls {pending}"
        pending = {c["id"] for c in message.get("tool_calls") or ()}
    assert not pending


def outputs(messages: list[dict[str, Any]]) -> dict[str, str]:
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def test_nothing_to_drop_gives_none() -> None:
    assert compact([{"role": "user", "content": BIG}]) is None
    assert compact([{"role": "user", "content": "hi"}, *step("c1")]) is None
    assert compact([]) is None


def test_with_a_budget_the_oldest_tool_output_goes_first() -> None:
    messages = conversation()
    result = compact(messages, budget_tokens=estimate_tokens(messages) - 500)
    assert result is not None
    assert outputs(result) == {"a1": TOOL_PLACEHOLDER, "b1": BIG, "b2": BIG, "c1": BIG, "c2": BIG}
    assert_valid(result)


def test_older_turns_go_after_their_tool_outputs() -> None:
    messages = conversation()
    expected = [
        {"role": "user", "content": "turn one"},
        {"role": "assistant", "content": TURN_PLACEHOLDER},
        messages[4],
        *step("b1", TOOL_PLACEHOLDER),
        *step("b2", TOOL_PLACEHOLDER),
        *messages[9:],
    ]
    assert compact(messages, budget_tokens=estimate_tokens(expected)) == expected
    assert_valid(expected)


def test_without_a_budget_all_but_the_current_step_and_the_last_user_message_go() -> None:
    messages = conversation()
    result = compact(messages)
    assert result is not None
    assert [m["content"] for m in result if m["role"] == "user"] == [
        "turn one",
        "turn two",
        "turn three",
    ]
    assert outputs(result) == {"c1": TOOL_PLACEHOLDER, "c2": BIG}
    assert result[-4:] == [*step("c1", TOOL_PLACEHOLDER), *step("c2")]
    assert sum(m.get("content") == TURN_PLACEHOLDER for m in result) == 2
    assert_valid(result)


def test_the_input_is_left_alone() -> None:
    messages = conversation()
    before = copy.deepcopy(messages)
    compact(messages)
    assert messages == before


def test_a_long_earlier_user_message_keeps_only_its_start() -> None:
    pasted = "please look at this log: " + "y" * 5000
    messages = [
        {"role": "user", "content": pasted},
        {"role": "assistant", "content": "seen"},
        {"role": "user", "content": "and now?"},
    ]
    result = compact(messages)
    assert result is not None and len(result) == 3
    assert result[0]["content"].startswith("please look at this log: ")
    assert result[0]["content"].endswith("[the rest was dropped]")
    assert len(result[0]["content"]) < 400
    assert result[1:] == [{"role": "assistant", "content": TURN_PLACEHOLDER}, messages[2]]


def test_short_outputs_are_kept_as_they_are() -> None:
    messages = [{"role": "user", "content": "go"}, *step("c1", "ok"), *step("c2")]
    assert compact(messages) is None


def test_the_estimate_is_about_four_characters_a_token() -> None:
    assert estimate_tokens("x" * 398) == 100  # the JSON quotes count too
    assert estimate_tokens([{"role": "user", "content": ""}]) > 0
