"""The session store: append-only lines, torn lines, resolution, listing, the active pointer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import TurnFinished, Usage
from zizou.contracts.messages import AssistantMessage, ToolMessage, from_wire
from zizou.contracts.protocols import ToolCall
from zizou.errors import UsageError
from zizou.paths import UnsafeProjectDir
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
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
    assert loaded.messages == conversation.records
    assert loaded.turns == 1 and loaded.warnings == []
    assert loaded.meta.model == "m"


def test_a_torn_last_line_is_skipped_and_reported(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "m")
    writer.append_message(from_wire({"role": "user", "content": "kept"}))
    writer.close()
    with store.path("s1").open("ab") as f:
        f.write(b'{"kind": "message", "message": {"role": "assis')
    loaded = store.load("s1")
    assert loaded.wire() == [{"role": "user", "content": "kept"}]
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
        writer.append_message(from_wire({"role": "user", "content": prompt}))
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


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    return directory


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def test_a_symlinked_zizou_dir_is_refused_and_never_written(project: Path, outside: Path) -> None:
    (project / ".zizou").symlink_to(outside, target_is_directory=True)
    store = SessionStore(project)
    with pytest.raises(UnsafeProjectDir, match="symbolic link"):
        store.create("s1", "m")
    with pytest.raises(UnsafeProjectDir):
        store.set_active("s1")
    assert store.list() == [] and store.active_id() is None
    assert list(outside.iterdir()) == []


def test_a_symlinked_sessions_dir_is_refused_and_never_read(project: Path, outside: Path) -> None:
    (outside / "planted.jsonl").write_text('{"kind": "meta", "id": "planted", "created": "x"}\n')
    (project / ".zizou").mkdir()
    (project / ".zizou" / "sessions").symlink_to(outside, target_is_directory=True)
    store = SessionStore(project)
    with pytest.raises(UnsafeProjectDir, match="symbolic link"):
        store.create("s1", "m")
    assert store.list() == []
    with pytest.raises(UsageError, match="no session"):
        store.resolve("planted")
    assert sorted(p.name for p in outside.iterdir()) == ["planted.jsonl"]


def test_a_planted_active_session_that_climbs_out_is_ignored(project: Path) -> None:
    (project / ".zizou").mkdir()
    (project / ".zizou" / "info.json").write_text('{"active_session": "../../../etc/x"}\n')
    planted = project.parent / "etc" / "x.jsonl"  # a real session where the climb would land
    planted.parent.mkdir()
    planted.write_text(
        '{"kind": "meta", "v": 1, "id": "x", "created": "2026-01-01T00:00:00Z"}\n'
        '{"kind": "message", "message": {"role": "user", "content": "planted"}}\n'
    )
    store = SessionStore(project)
    assert store.active_id() is None
    with pytest.raises(UsageError, match="cannot read session"):
        store.load("../../../etc/x")


def test_the_runtime_skips_the_session_with_a_warning_when_zizou_dir_is_unsafe(
    project: Path, outside: Path
) -> None:
    (project / ".zizou").symlink_to(outside, target_is_directory=True)
    options = RunOptions(root=project, debug_log=False)
    runtime = build_session(options, ScriptedModel(["hi"]), ScriptedApprover())
    runtime.prompt.render()
    runtime.close()
    assert runtime.writer is None
    assert any("not saved" in warning for warning in runtime.warnings)
    assert list(outside.iterdir()) == []


def test_tool_results_keep_their_outcome_and_older_or_newer_formats_are_handled(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "m")
    conversation = Conversation(on_append=writer.append_message)
    conversation.add_user("edit it")
    conversation.add_assistant("", (ToolCall("c1", "edit_file", "{}"),))
    failed = ToolMessage(tool_call_id="c1", content="Error: no match", ok=False, name="edit_file")
    conversation.add_tool_result(failed)
    writer.close()
    assert store.load("s1").messages[-1] == failed

    v1 = [
        {"kind": "meta", "v": 1, "id": "old", "created": "2026-01-01T00:00:00+00:00"},
        {"kind": "message", "message": {"role": "user", "content": "go"}},
        {
            "kind": "message",
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ],
            },
        },
        {
            "kind": "message",
            "message": {"role": "tool", "tool_call_id": "c1", "content": "Error: x"},
        },
    ]
    store.path("old").write_text("".join(json.dumps(line) + "\n" for line in v1))
    [_, call, result] = store.load("old").messages
    assert isinstance(call, AssistantMessage) and call.tool_calls[0].name == "ls"
    assert isinstance(result, ToolMessage) and result.ok is False

    newer = {"kind": "meta", "v": 99, "id": "new", "created": "2026-01-01T00:00:00+00:00"}
    store.path("new").write_text(json.dumps(newer) + "\n")
    with pytest.raises(UsageError, match=r"newer zizou .*upgrade zizou"):
        store.load("new")
