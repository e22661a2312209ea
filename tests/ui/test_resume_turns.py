"""A resumed session shows the turns the conversation has: the undone turn (a shared `!command`
with the message after it, and its checks report) is left out whole, with its turn marks,
whatever the file's format."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_first_hour_app import persisted_app
from turn_story import ONE, write_session
from ui_harness import settle

from zizou.contracts.messages import Message, to_wire
from zizou.sessions.records import TurnRecord
from zizou.ui.resumed import session_records


@pytest.mark.parametrize("version", [1, 2])
async def test_the_undone_turn_is_not_shown(project: Path, version: int) -> None:
    write_session(project, version)
    app = persisted_app(project, [], resume=True)
    async with app.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: app.opening.ready)
        await settle(pilot)
        shown = session_records(app.session)
        messages: list[Message] = [r for r in shown if not isinstance(r, TurnRecord)]
        kept = len(ONE) if version >= 2 else len(ONE) - 1  # format 1 had no checks report
        assert [to_wire(m) for m in messages] == app.session.kernel.state.conversation.messages
        assert len(messages) == kept
        marks = [r.event for r in shown if isinstance(r, TurnRecord)]
        assert marks == ["started", "finished"]
