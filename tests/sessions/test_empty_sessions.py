"""A session exists once something was said in it: a run that ends before its first message
leaves no file, moves no active pointer, and an empty file (an older zizou, a crash) is neither
listed nor continued."""

from __future__ import annotations

import json
from pathlib import Path

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions, SessionChoice
from zizou.contracts.conversation import Conversation
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.sessions import SessionStore


def _said(store: SessionStore, session_id: str, text: str) -> None:
    writer = store.create(session_id, "m")
    writer.begin_turn(text, [])
    Conversation(on_append=writer.append_message).add_user(text)
    writer.close()


def test_a_run_that_said_nothing_leaves_no_session(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    _said(store, "20260101-old", "the real work")
    runtime = build_session(
        RunOptions(root=tmp_path, debug_log=False), ScriptedModel([]), ScriptedApprover()
    )
    runtime.close()
    assert not store.path(runtime.session_id).exists()
    assert [s.id for s in store.list()] == ["20260101-old"]
    assert store.active_id() == "20260101-old"


def test_the_file_appears_with_the_first_message_header_first(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "openai/x")
    writer.begin_turn("hi", [])
    assert not store.path("s1").exists() and store.active_id() is None
    Conversation(on_append=writer.append_message).add_user("hi")
    kinds = [json.loads(line)["kind"] for line in store.path("s1").read_text().splitlines()]
    assert kinds == ["meta", "turn", "message"]
    assert store.active_id() == "s1"
    writer.close()


def test_an_empty_session_file_is_not_listed_nor_continued(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    _said(store, "20260101-old", "the real work")
    sessions = tmp_path / ".zizou" / "sessions"
    (sessions / "20260102-empty.jsonl").write_text(
        '{"kind":"meta","v":1,"id":"20260102-empty","created":"2026-01-02T00:00:00+00:00"}\n'
    )
    store.set_active("20260102-empty")
    assert [s.id for s in store.list()] == ["20260101-old"]
    assert store.active_id() == "20260101-old"
    options = RunOptions(root=tmp_path, session=SessionChoice(continue_last=True), debug_log=False)
    runtime = build_session(options, ScriptedModel([]), ScriptedApprover())
    runtime.close()
    assert runtime.session_id == "20260101-old"
