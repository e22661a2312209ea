"""Where turns start (`turn_starts`): the one rule the history window, compaction, loading a
session, undo and the resumed view share. A checks report and a shared `!command` are told
from the user's words by their typed fields, whatever their text says."""

from __future__ import annotations

from zizou.agent.summary import ACKNOWLEDGEMENT, SUMMARY_HEADER
from zizou.contracts.conversation import (
    Conversation,
    said_by_user,
    turn_start,
    turn_starts,
    user_messages,
)
from zizou.contracts.messages import ShellRun, ToolMessage, stored
from zizou.contracts.protocols import ToolCall


def conversation() -> Conversation:
    """Turn 0 ("one": a tool call, a checks report, a fix), then a shared `!ls` and "two",
    which open turn 1 together (it is named 2: its last user message is the third)."""
    talk = Conversation()
    talk.add_user("one")
    talk.add_assistant("", (ToolCall("c1", "read_file", "{}"),))
    talk.add_tool_result(ToolMessage(tool_call_id="c1", content="text"))
    talk.add_assistant("done")
    talk.add_checks_report("two")  # the same text as the user's next message: text decides nothing
    talk.add_assistant("fixed")
    talk.add_user("$ ls\nexit code 0", shell=ShellRun(command="ls", result="exit code 0", ok=True))
    talk.add_user("two")
    talk.add_assistant("b")
    return talk


def test_a_user_message_opens_a_turn_and_tool_results_and_checks_reports_do_not() -> None:
    records = conversation().records
    assert [said_by_user(r) for r in records] == [
        True, False, False, False, False, False, True, True, False,
    ]  # fmt: skip
    assert turn_starts(records) == [0, 6]


def test_a_shared_command_opens_the_turn_of_the_message_after_it() -> None:
    records = conversation().records
    assert turn_start(records, 1) == turn_start(records, 2) == 6
    assert turn_start(records, 0) == 0 and turn_start(records, 3) is None
    assert user_messages(records) == 3


def test_a_stored_record_says_what_the_record_says_and_a_wire_message_is_the_users() -> None:
    records = conversation().records
    assert turn_starts([stored(r) for r in records]) == turn_starts(records)
    wire = conversation().messages  # the wire format has no `checks`: the report looks asked
    assert turn_starts(wire) == [0, 4, 6]


def test_a_compaction_summary_opens_the_first_turn_after_it() -> None:
    summary = [
        {"role": "user", "content": f"{SUMMARY_HEADER}\n\n## Goal\n..."},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
        {"role": "user", "content": "go on"},
    ]
    talk = conversation()
    talk.summarised(summary)
    assert turn_starts(talk.records) == [0, 2] and user_messages(talk.records) == 2


def test_a_shortened_copy_keeps_the_typed_fields_of_the_user_messages_it_keeps() -> None:
    talk = conversation()
    wire = talk.messages
    wire[4] = {**wire[4], "content": "shortened"}  # what compaction may do to a long message
    talk.replace(wire)
    assert talk.records[4].model_dump()["checks"] is True
    assert turn_starts(talk.records) == [0, 6]
