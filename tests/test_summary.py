"""Compaction the user controls: `/compact`'s summary replaces the history, automatic
compaction before a turn that neared the context window, and failures that lose nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from scripted_agent import assert_history_valid, call, collect, make_agent

from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.summary import ACKNOWLEDGEMENT, SUMMARY_HEADER, transcript
from zizou.contracts.events import AgentError, Compacted, TurnFinished
from zizou.errors import ProviderError
from zizou.providers.fake import ScriptedModel

HISTORY = [
    {"role": "user", "content": "add a --verbose flag"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "x" * 5000},
    {"role": "assistant", "content": "Added it to cli.py."},
]


def test_compact_replaces_the_history_with_the_summary_and_tells_the_recorders(
    tmp_path: Path,
) -> None:
    agent, model = make_agent(tmp_path, [{"text": "## Goal\nA --verbose flag."}], history=HISTORY)
    seen: list[object] = []

    class Recorder:
        def emit(self, event: object) -> None:
            seen.append(event)

    agent.recorders.append(Recorder())  # type: ignore[arg-type]
    event = asyncio.run(agent.compact("keep the file names"))
    assert event.by == "user" and event.summary == "## Goal\nA --verbose flag."
    assert event.tokens_after < event.tokens_before
    assert seen == [event]
    messages = agent.conversation.messages
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[0]["content"] == f"{SUMMARY_HEADER}\n\n## Goal\nA --verbose flag."
    assert messages[1]["content"] == ACKNOWLEDGEMENT
    sent = model.requests[0]
    assert sent.tools == [] and "keep the file names" in sent.messages[0]["content"]
    assert "[tool call read_file]" in sent.messages[0]["content"]
    assert "characters cut" in sent.messages[0]["content"]  # the long output, cut


def test_a_failed_summary_leaves_the_history_whole(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [{"status": 500}], history=HISTORY)
    with pytest.raises(ProviderError):
        asyncio.run(agent.compact())
    assert agent.conversation.messages == HISTORY


def auto_agent(
    tmp_path: Path, replies: list[Any], window: int = 1000
) -> tuple[Agent, ScriptedModel]:
    agent, model = make_agent(tmp_path, replies, history=HISTORY)
    agent.config = AgentConfig(max_steps=5, compact_threshold=0.85)
    model.context_window = window  # type: ignore[attr-defined]
    return agent, model


def test_a_turn_after_a_request_near_the_window_starts_with_a_visible_compaction(
    tmp_path: Path,
) -> None:
    agent, model = auto_agent(
        tmp_path,
        [
            {"text": "first", "prompt_tokens": 900},
            {"text": "## Goal\nsummary"},
            {"tool_calls": [call("list_dir", path=".")], "prompt_tokens": 100},
            {"text": "second"},
        ],
    )
    first = asyncio.run(collect(agent, "one"))
    assert not [e for e in first if isinstance(e, Compacted)]  # 900 was this turn's own
    events = asyncio.run(collect(agent, "two"))
    compacted = [e for e in events if isinstance(e, Compacted)]
    assert len(compacted) == 1 and compacted[0].by == "auto"
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "second"
    messages = agent.conversation.messages
    assert messages[0]["content"].startswith(SUMMARY_HEADER)
    assert messages[2] == {"role": "user", "content": "two"}
    assert_history_valid(messages)
    assert model.requests[2].messages[0]["content"].startswith(SUMMARY_HEADER)


def test_an_automatic_compaction_that_fails_says_so_and_the_turn_goes_on(tmp_path: Path) -> None:
    agent, _ = auto_agent(
        tmp_path,
        [{"text": "first", "prompt_tokens": 950}, {"status": 400}, {"text": "answered"}],
    )
    asyncio.run(collect(agent, "one"))
    events = asyncio.run(collect(agent, "two"))
    errors = [e for e in events if isinstance(e, AgentError)]
    assert len(errors) == 1 and not errors[0].fatal and "sent whole" in errors[0].message
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert agent.conversation.messages[: len(HISTORY)] == HISTORY


def test_the_transcript_keeps_the_newest_part_when_it_is_too_long() -> None:
    many = [{"role": "user", "content": f"message {i} " + "y" * 1000} for i in range(600)]
    text = transcript(many)
    assert text.startswith("[…the oldest part") and "message 599" in text
    assert "message 0 " not in text


def test_the_summary_is_kept_in_the_session_file_and_continue_goes_on_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from zizou.agent.approvers import ScriptedApprover
    from zizou.config.options import RunOptions
    from zizou.session.assembly import build_session
    from zizou.sessions import SessionStore

    monkeypatch.setenv("ZIZOU_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    model = ScriptedModel([{"text": "first answer"}, {"text": "## Goal\nkeep it short"}])
    runtime = build_session(RunOptions(root=project, debug_log=False), model, ScriptedApprover())
    asyncio.run(collect(runtime.agent, "hello"))
    asyncio.run(runtime.agent.compact())
    runtime.close()
    loaded = SessionStore(project).load(runtime.session_id)
    assert [m.content for m in loaded.messages] == [
        f"{SUMMARY_HEADER}\n\n## Goal\nkeep it short",
        ACKNOWLEDGEMENT,
    ]
