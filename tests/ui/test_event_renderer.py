"""The renderer's cases the scripted model does not reach: a tool's progress under its row, the
reply that ends the streamed text before the tools run, and how a turn's ending is told."""

from __future__ import annotations

from typing import Any

from ui_harness import MakeApp, settle

from zizou.contracts.events import (
    ModelReplied,
    StepFinished,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
    Usage,
)
from zizou.ui.event_renderer import EventRenderer
from zizou.ui.widgets.messages import AssistantMessage, Notice
from zizou.ui.widgets.tool_row import ToolRow


class Told:
    """The renderer's host: what it put in the status line, and how often the sidebar."""

    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.changes = 0

    def set_status(self, state: str) -> None:
        self.statuses.append(state)

    def session_changed(self) -> None:
        self.changes += 1


def renderer_for(app: Any) -> tuple[EventRenderer, Told]:
    told = Told()
    return EventRenderer(app.chat, app.session, told), told


async def test_tool_progress_shows_under_the_running_row_until_it_finishes(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        renderer, _ = renderer_for(app)
        await renderer.handle(ToolCallStarted("c1", "grep", '{"pattern": "TODO"}'))
        progress = "10 files searched\n\x1b[1m40\x1b[0m files\n"
        await renderer.handle(ToolProgress("c1", "grep", progress))
        await renderer.handle(ToolProgress("other", "grep", "no row: ignored"))
        await pilot.pause()
        row = app.query_one(ToolRow)
        preview = row.query_one(".tool-preview")
        assert preview.display and str(preview.render()) == "40 files"
        await renderer.handle(ToolCallFinished("c1", "grep", True, "a.py:1: TODO", 0.2))
        await pilot.pause()
        assert row.ok and not preview.display


async def test_the_reply_ends_the_streamed_text_and_usage_counts_at_the_step_end(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        renderer, told = renderer_for(app)
        await renderer.handle(TextDelta("Looking at **it**."))
        usage = Usage(120, 8)
        await renderer.handle(ModelReplied(1, "Looking at **it**.", ("read_file",), usage))
        assert renderer.message is None and app.session.totals == Usage()
        await renderer.handle(StepFinished(1, usage))
        assert app.session.totals == usage and told.changes == 1
        (message,) = app.query(AssistantMessage)
        assert message.source == "Looking at **it**."


async def test_a_cancelled_turn_leaves_its_telling_to_the_controller(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        before = len(app.query(Notice))
        renderer, _ = renderer_for(app)
        cut = TurnFinished("cancelled", "", 1, Usage(5, 1), "the turn was cancelled")
        await renderer.handle(cut)
        assert renderer.finished is cut and app.session.last_turn == Usage(5, 1)
        await renderer.handle(TurnFinished("max_steps", "", 15, Usage(), "stopped after 15 steps"))
        await pilot.pause()
        told = [n.message for n in app.query(Notice)][before:]
        assert told == ["stopped after 15 steps"]


async def test_the_renderer_takes_one_event_of_every_kind(make_app: MakeApp) -> None:
    from test_event_consumers import ONE_OF_EACH  # the same sample every consumer is fed

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        renderer, told = renderer_for(app)
        for event in ONE_OF_EACH:
            await renderer.handle(event)
        await renderer.close()
        await pilot.pause()
        row = app.query_one(ToolRow)
        assert row.ok and row.tool == "read_file" and row.summary == "a.txt"
        assert any("provider fell over" in str(n.render()) for n in app.query(Notice))
        assert told.statuses
