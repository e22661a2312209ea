"""A conversation shortened to fit the context window is a `compacted` line: loading replays it,
the lines before it stay, and a write torn by a crash loses nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from scripted_agent import call, collect, make_agent

from zizou.contracts.conversation import Conversation
from zizou.contracts.events import Retrying
from zizou.contracts.messages import ToolMessage, from_wire
from zizou.contracts.protocols import ModelEvent, ModelRequest
from zizou.providers.fake import ScriptedModel
from zizou.sessions import SessionStore, SessionWriter

FULL: list[dict[str, Any]] = [
    {"role": "user", "content": "read big.txt"},
    {"role": "assistant", "content": "Read it: " + "lorem ipsum " * 50},
    {"role": "user", "content": "list the files"},
]
SHORT: list[dict[str, Any]] = [
    {"role": "user", "content": "read big.txt"},
    {"role": "assistant", "content": "[dropped]"},
    {"role": "user", "content": "list the files"},
]


def shortened(messages: list[dict[str, Any]]) -> Retrying:
    return Retrying(2, 0.0, "too long; retrying now", resent_messages=tuple(messages))


def started(store: SessionStore) -> tuple[SessionWriter, Conversation]:
    writer = store.create("s1", "openai/x")
    conversation = Conversation(on_append=writer.append_message)
    writer.begin_turn("read big.txt", conversation.messages)
    for message in FULL:
        if message["role"] == "user":
            conversation.add_user(message["content"])
        else:
            conversation.add_assistant(message["content"])
    return writer, conversation


def kinds(store: SessionStore) -> list[str]:
    return [json.loads(line)["kind"] for line in store.path("s1").read_text().splitlines()]


def test_loading_replays_the_shortening_and_keeps_what_follows(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(shortened([*SHORT[:2], FULL[2]]))
    writer.append_message(from_wire({"role": "assistant", "content": "Listed."}))
    assert kinds(store) == ["meta", "turn", "message", "message", "message", "compacted", "message"]
    assert store.load("s1").wire() == [*SHORT, {"role": "assistant", "content": "Listed."}]


def test_the_compacted_line_says_how_many_messages_went(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(shortened([FULL[2]]))
    compacted = json.loads(store.path("s1").read_text().splitlines()[-1])
    assert compacted["kind"] == "compacted" and compacted["dropped"] == 2
    assert compacted["messages"] == [FULL[2]]


def test_a_later_shortening_replaces_the_earlier_one(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(shortened(SHORT))
    writer.emit(shortened([SHORT[2]]))
    assert store.load("s1").wire() == [SHORT[2]]


def test_a_retry_that_did_not_shorten_writes_no_line(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(Retrying(2, 1.0, "rate limited, retrying in 1 s"))
    assert "compacted" not in kinds(store)
    assert store.load("s1").wire() == FULL


def test_a_torn_compacted_line_loads_the_full_history(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(shortened(SHORT))
    writer.close()
    raw = store.path("s1").read_bytes()
    store.path("s1").write_bytes(raw[: raw.index(b'{"kind":"compacted"') + 60])
    loaded = store.load("s1")
    assert loaded.wire() == FULL
    assert loaded.warnings == [
        "session s1: skipped a torn last line (an interrupted write) that could not be read"
    ]


def test_a_record_appended_to_a_torn_line_is_still_read(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    writer, _ = started(store)
    writer.emit(shortened(SHORT))
    writer.close()
    raw = store.path("s1").read_bytes()
    store.path("s1").write_bytes(raw[: raw.index(b'{"kind":"compacted"') + 60])
    resumed = store.reopen("s1")  # the next run appends right after the torn bytes
    resumed.begin_turn("and now?", FULL)
    resumed.append_message(from_wire({"role": "user", "content": "and now?"}))
    loaded = store.load("s1")
    assert loaded.wire() == [*FULL, {"role": "user", "content": "and now?"}]
    assert loaded.turns == 2
    assert any("the torn start of line" in warning for warning in loaded.warnings)


class ShortensOnce(ScriptedModel):
    """The scripted model, whose second request comes back shortened (as the retry layer does
    after a context overflow) before its reply."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        if len(self.requests) == 1:
            yield Retrying(2, 0.0, "too long; retrying", resent_messages=tuple(request.messages))
        async for event in super().stream(request):
            yield event


async def test_a_shortened_history_keeps_each_tool_results_outcome_through_a_resume(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "openai/x")
    (tmp_path / "a.txt").write_text("a\n")
    edit = call("edit_file", path="a.txt", old_string="zzz", new_string="y")
    model = ShortensOnce([{"tool_calls": [edit]}, {"text": "done"}])
    agent, _ = make_agent(tmp_path, [], model=model)
    agent.conversation.on_append = writer.append_message
    agent.recorders.append(writer)
    await collect(agent, "edit it")
    writer.close()
    assert "compacted" in kinds(store)
    [failed] = [m for m in store.load("s1").messages if isinstance(m, ToolMessage)]
    assert failed.ok is False and failed.name == "edit_file"
