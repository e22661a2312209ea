"""The history window: the last N earlier user turns, each whole, and the current turn in full;
every tool call keeps its result."""

from __future__ import annotations

from typing import Any

from scripted_agent import assert_history_valid

from zizou.core.loop import windowed


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


def test_a_checks_report_goes_on_the_turn_before_it() -> None:
    """The report zizou sends once the model ended its turn is not the user's: it does not
    start a turn of its own, so it is neither counted nor sent without its turn."""
    report = "The checks configured for this project ran ...\nm.py:3: F401 unused import"
    checked = [*turn(2, with_tool=True), {"role": "user", "content": report}, *turn(9)[1:]]
    history = turn(1) + checked + turn(3) + [{"role": "user", "content": "now"}]
    sent, left_out = windowed(history, 2, [report])
    assert sent[: len(checked)] == checked and left_out == 1
    sent, left_out = windowed(history, 1, [report])
    assert [m["content"] for m in sent] == ["q3", "a3", "now"] and left_out == 2
    assert windowed(history, 2)[1] == 2  # counted as a turn, it would push q2 out
    assert_history_valid(sent)
