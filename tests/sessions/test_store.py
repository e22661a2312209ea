"""The session store: append-only lines, torn lines, resolution, listing, the active pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zizou.core.conversation import Conversation
from zizou.core.events import TurnFinished, Usage
from zizou.errors import UsageError
from zizou.sessions import SessionStore


def test_messages_are_on_disk_as_soon_as_they_are_added(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "openai/x")
    conversation = Conversation(on_append=writer.append_message)
    conversation.add_user("hello")
    lines = store.path("s1").read_text().splitlines()
    assert json.loads(lines[-1]) == {
        "kind": "message",
        "message": {"role": "user", "content": "hello"},
    }
    assert store.path("s1").stat().st_mode & 0o777 == 0o600
    assert (tmp_path / ".zizou" / ".gitignore").read_text() == "*\n"
    assert store.active_id() == "s1"


def test_a_session_round_trips_with_turn_counts(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "m")
    conversation = Conversation(on_append=writer.append_message)
    writer.begin_turn("hi", [])
    conversation.add_user("hi")
    conversation.add_assistant("hello")
    writer.emit(TurnFinished("done", "hello", 1, Usage(3, 4)))
    writer.close()
    loaded = store.load("s1")
    assert loaded.messages == conversation.messages
    assert loaded.turns == 1 and loaded.warnings == []
    assert loaded.meta.model == "m"


def test_a_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "m")
    writer.append_message({"role": "user", "content": "kept"})
    writer.close()
    with store.path("s1").open("ab") as f:
        f.write(b'{"kind": "message", "message": {"role": "assis')
    loaded = store.load("s1")
    assert loaded.messages == [{"role": "user", "content": "kept"}]
    assert len(loaded.warnings) == 1 and "torn last line" in loaded.warnings[0]


def test_a_retried_message_is_not_duplicated(tmp_path: Path) -> None:
    conversation = Conversation()
    assert conversation.add_user("fix it") is True
    assert conversation.add_user("fix it") is False
    assert conversation.messages == [{"role": "user", "content": "fix it"}]


def test_resolve_by_prefix_and_list_newest_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    for session_id, prompt in [("20260101-aaa", "first"), ("20260102-bbb", "second")]:
        writer = store.create(session_id, "m")
        writer.append_message({"role": "user", "content": prompt})
        writer.close()
    assert store.resolve("20260101") == "20260101-aaa"
    with pytest.raises(UsageError, match="matches 2"):
        store.resolve("2026")
    with pytest.raises(UsageError, match="sessions list"):
        store.resolve("nope")
    assert [s.id for s in store.list()] == ["20260102-bbb", "20260101-aaa"]
    assert store.active_id() == "20260102-bbb"


def test_a_store_in_a_fresh_directory_creates_nothing_until_used(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    assert store.list() == [] and store.active_id() is None
    assert not (tmp_path / ".zizou").exists()
