"""Every reader of turns cuts the conversation where `turn_starts` says: the history window,
compaction, loading a session (format 2, and format 1 written before checks reports existed)
and undo's history agree on the turns of one story (tests/turn_story.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripted_agent import make_agent
from turn_story import ONE, SESSION, TWO, write_session

from zizou.checkpoints.history import History
from zizou.contracts.compaction import TURN_PLACEHOLDER, compact
from zizou.contracts.conversation import user_messages
from zizou.contracts.messages import UserMessage
from zizou.sessions import SessionStore

NOW = {"role": "user", "content": "now"}


@pytest.mark.parametrize("version", [1, 2])
def test_loading_keeps_the_checkpoints_of_the_turns_it_counts(tmp_path: Path, version: int) -> None:
    write_session(tmp_path, version)
    loaded = SessionStore(tmp_path).load(SESSION)
    assert loaded.warnings == []  # each checkpoint names the turn running where it stands
    asked = [m.content for m in loaded.messages if isinstance(m, UserMessage) and m.from_user]
    assert asked == ["one"] and loaded.turns == 2  # the undone turn is gone


@pytest.mark.parametrize("version", [1, 2])
def test_undo_can_redo_the_turn_it_undid(tmp_path: Path, version: int) -> None:
    """Redo needs the conversation to have as many user messages as right after the undo: a
    checks report in the undone turn is not one of them."""
    write_session(tmp_path, version)
    loaded = SessionStore(tmp_path).load(SESSION)
    history = History.replay(loaded.checkpoints)
    assert set(history.turns) == {0}
    [entry] = history.redo
    assert entry.turn == 2 and entry.users_after == user_messages(loaded.messages) == 1


def test_the_history_window_sends_the_shared_command_with_its_turn(tmp_path: Path) -> None:
    agent, _ = make_agent(tmp_path, [], history=[*ONE, *TWO, NOW])
    agent.config = agent.config.model_copy(update={"history_window": 1})
    request, plan, _ = agent.build_request()
    assert request.messages[0]["content"] == TWO[0]["content"] and plan.left_out_turns == 1
    agent.config = agent.config.model_copy(update={"history_window": 0})
    request, plan, _ = agent.build_request()
    assert request.messages == [NOW] and plan.left_out_turns == 2


def test_compaction_collapses_whole_turns_and_keeps_every_user_message() -> None:
    shorter = compact([*ONE, *TWO, NOW], budget_tokens=0)
    assert shorter is not None
    assert [m["content"] for m in shorter] == [
        "one", TURN_PLACEHOLDER, ONE[4]["content"],  # the report goes with turn 0
        TWO[0]["content"], "two", TURN_PLACEHOLDER, TWO[5]["content"],
        "now",
    ]  # fmt: skip
