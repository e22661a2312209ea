"""`zizou sessions list` titles a session by the first message the user wrote, also once a
compaction replaced the conversation with its summary, and counts "1 turn", not "1 turns"."""

from __future__ import annotations

from pathlib import Path

from conftest import run_cli

from zizou.contracts.conversation import Conversation
from zizou.sessions import SessionStore

SUMMARY = "Summary of the conversation so far: the user asked to read big.txt."


def test_a_compacted_session_keeps_its_first_message_as_its_title(
    project: Path, zizou_home: Path
) -> None:
    store = SessionStore(project)
    writer = store.create("20250101-120000-abc123", "openai/x")
    conversation = Conversation(on_append=writer.append_message)
    writer.begin_turn("read big.txt", conversation.messages)
    conversation.add_user("read big.txt")
    conversation.add_assistant("Read it.")
    writer.record_compaction([{"role": "user", "content": SUMMARY}])
    writer.close()
    assert store.load("20250101-120000-abc123").wire()[0]["content"] == SUMMARY

    listing = run_cli(["sessions", "list"], project, zizou_home)
    assert listing.code == 0, listing.stderr
    row = listing.stdout.splitlines()[-1]
    assert row.endswith("  1 turn  read big.txt"), row
