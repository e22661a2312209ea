"""The history window: the last N earlier user turns, each whole, and the current turn in full;
every tool call keeps its result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scripted_agent import assert_history_valid, make_agent

from zizou.contracts.conversation import windowed


def turn(n: int, with_tool: bool = False) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": f"q{n}"}]
    if with_tool:
        call = {"id": f"c{n}", "type": "function", "function": {"name": "x", "arguments": "{}"}}
        messages += [
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": "r"},
        ]
    return [*messages, {"role": "assistant", "content": f"a{n}"}]


HISTORY = turn(1) + turn(2, with_tool=True) + turn(3) + [{"role": "user", "content": "now"}]


def test_all_is_everything() -> None:
    assert windowed(HISTORY, None) == (HISTORY, 0)


def test_a_window_keeps_whole_earlier_turns_and_the_current_one() -> None:
    sent, left_out = windowed(HISTORY, 1)
    assert [m["content"] for m in sent] == ["q3", "a3", "now"] and left_out == 2
    sent, left_out = windowed(HISTORY, 2)
    assert sent[0]["content"] == "q2" and left_out == 1
    assert_history_valid(sent)


def test_a_window_of_zero_sends_only_the_current_turn_with_its_tool_exchanges() -> None:
    current = turn(4, with_tool=True)[:-1]  # the turn is running: its call has its result
    sent, left_out = windowed(HISTORY[:-1] + current, 0)
    assert sent == current and left_out == 3
    assert_history_valid(sent)


def test_a_window_larger_than_the_history_leaves_nothing_out() -> None:
    assert windowed(HISTORY, 10) == (HISTORY, 0)


def test_a_checks_report_goes_on_the_turn_before_it(tmp_path: Path) -> None:
    """The report zizou sends once the model ended its turn is not the user's (its `checks`
    field says so, whatever it reads): it does not start a turn of its own, so it is neither
    counted nor sent without its turn."""
    report = {"role": "user", "content": "q3", "checks": True}  # reads as a user's message
    checked = [*turn(2, with_tool=True), report, *turn(9)[1:]]
    history = turn(1) + checked + turn(3) + [{"role": "user", "content": "now"}]
    agent, _ = make_agent(tmp_path, [], history=history)
    agent.config = agent.config.model_copy(update={"history_window": 2})
    request, plan, _ = agent.build_request()
    wire = [{k: v for k, v in m.items() if k != "checks"} for m in checked]
    assert request.messages[: len(checked)] == wire and plan.left_out_turns == 1
    agent.config = agent.config.model_copy(update={"history_window": 1})
    request, plan, _ = agent.build_request()
    assert [m["content"] for m in request.messages] == [
        "q3",
        "a3",
        "now",
    ] and plan.left_out_turns == 2
    assert_history_valid(request.messages)
