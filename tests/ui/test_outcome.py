"""How a recorded tool result reads in a row, and the tail of a command's output: pure tables."""

from __future__ import annotations

import pytest

from zizou.contracts.messages import Message, ToolMessage, UserMessage
from zizou.ui.outcome import Outcome, command_preview, outcome_of, recorded_result

OUTCOMES = [
    ("exit code 0\nok", Outcome(True, "exit code 0\nok")),
    ("Error: exit code 2\nboom", Outcome(False, "exit code 2\nboom")),
    (
        "Error: the user did not approve this call: no",
        Outcome(False, "the user did not approve this call: no", "denied"),
    ),
    (
        "Error: refused: outside the project",
        Outcome(False, "refused: outside the project", "refused"),
    ),
    (
        "not run: the turn was cancelled",
        Outcome(False, "not run: the turn was cancelled", "interrupted"),
    ),
    (
        "not run: the turn was interrupted",
        Outcome(False, "not run: the turn was interrupted", "interrupted"),
    ),
    ("not run: the provider failed", Outcome(False, "not run: the provider failed", "not run")),
]


@pytest.mark.parametrize(("content", "expected"), OUTCOMES)
def test_a_recorded_result_reads_as_its_outcome(content: str, expected: Outcome) -> None:
    assert outcome_of(content) == expected


def test_a_command_preview_is_its_last_lines_and_a_count_of_the_rest() -> None:
    output = "exit code 0\n" + "\n".join(str(n) for n in range(1, 13)) + "\n"
    preview = command_preview(output)
    assert (preview.status, preview.lines, preview.hidden) == (
        None,
        ["8", "9", "10", "11", "12"],
        7,
    )


def test_a_cut_output_counts_every_line_the_command_printed_as_hidden() -> None:
    note = (
        '[4 of 1,000 lines shown (head and tail); read the rest with read_output(id="c1", '
        "start_line=3, end_line=998)]"
    )
    output = f"exit code 0\n{note}\n1\n2\n[... lines 3-998 not shown ...]\n999\n1000"
    preview = command_preview(output)
    assert preview.lines == ["1", "2", "[... lines 3-998 not shown ...]", "999", "1000"]
    assert preview.hidden == 995
    assert command_preview("job c3: running in the background\nready").status == (
        "job c3: running in the background"
    )


def test_a_failed_or_silent_command_says_so() -> None:
    assert command_preview("exit code 2\nboom").status == "exit code 2"
    assert command_preview("[timed out after 5.0 s; process group killed]\n(no output)").lines == [
        "(no output)"
    ]
    assert command_preview("exit code 0\n\x1b[31mred\x1b[0m").lines == ["red"]


def test_the_latest_result_for_a_call_is_found_and_its_record_says_if_it_failed() -> None:
    records: list[Message] = [
        ToolMessage(tool_call_id="a", content="old"),
        UserMessage(content="a"),
        ToolMessage(tool_call_id="a", content="no match here", ok=False),
    ]
    found = recorded_result(records, "a")
    assert found is not None and (found.ok, found.output) == (False, "no match here")
    assert recorded_result(records, "b") is None
