"""The model's reasoning in the app: a dim `✻ Thinking…` block above the answer while it
streams, folded to one line once the answer starts, shown whole again with Ctrl+O or a click,
never part of the answer, and thrown away with the rest of a step that is retried."""

from __future__ import annotations

import asyncio

from test_event_renderer import renderer_for
from ui_harness import MakeApp, clock_of, send, settle

from zizou.contracts.events import ReasoningDelta, Retrying, TextDelta
from zizou.ui.app import ZizouApp
from zizou.ui.widgets.messages import AssistantMessage
from zizou.ui.widgets.thinking import ThinkingBlock

REASONING = "First I read the notes.\nThen I count the words in them."


def screen_text(app: ZizouApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_reasoning_streams_above_the_answer_then_folds_to_one_line(
    make_app: MakeApp,
) -> None:
    gate = asyncio.Event()  # holds the reply after its reasoning, before its answer
    reply = {"reasoning": REASONING, "text": "There are 4 words.", "until": gate, "stall_after": 0}
    app = make_app([reply])
    async with app.run_test(size=(100, 30)) as pilot:
        clock_of(app).hold()
        await send(pilot, "how many words?")
        await settle(pilot, lambda: "count the words in them." in screen_text(app))
        block = app.query_one(ThinkingBlock)
        assert not block.finished and "✻ Thinking…" in screen_text(app)
        assert not app.query(AssistantMessage)

        clock_of(app).advance(4)
        gate.set()
        await settle(pilot, lambda: not app.busy)
        await pilot.pause()
        shown = screen_text(app)
        assert block.finished and "✻ Thought for 4s · 12 words" in shown
        assert "count the words in them." not in shown  # folded to its summary line
        answer = app.query_one(AssistantMessage)
        assert answer.source == "There are 4 words."
        children = list(app.chat.children)
        assert children.index(block) < children.index(answer)
        assistant = app.session.kernel.state.conversation.messages[-1]
        assert assistant["content"] == "There are 4 words."  # the model never reads it back

        await pilot.press("ctrl+o")
        await settle(pilot, lambda: "count the words in them." in screen_text(app))
        assert block.expanded


async def test_a_retry_throws_away_the_reasoning_of_the_failed_attempt(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        renderer, _ = renderer_for(app)
        await renderer.handle(ReasoningDelta("a thought of the failed attempt"))
        await renderer.handle(Retrying(2, 0.0, "the stream ended early, retrying now"))
        await pilot.pause()
        assert not app.query(ThinkingBlock)
        await renderer.handle(ReasoningDelta("the second thought"))
        await renderer.handle(TextDelta("Done."))
        await renderer.close()
        await pilot.pause()
        (block,) = app.query(ThinkingBlock)
        assert block.source == "the second thought" and block.finished


async def test_reasoning_after_some_of_the_answer_gets_a_block_of_its_own(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        renderer, _ = renderer_for(app)
        for event in (
            ReasoningDelta("plan"),
            TextDelta("Part one. "),
            ReasoningDelta("more thought"),
            TextDelta("Part two."),
        ):
            await renderer.handle(event)
        await renderer.close()
        await pilot.pause()
        kinds = [
            (type(child).__name__, getattr(child, "source", ""))
            for child in app.chat.children
            if isinstance(child, ThinkingBlock | AssistantMessage)
        ]
        assert kinds == [
            ("ThinkingBlock", "plan"),
            ("AssistantMessage", "Part one. "),
            ("ThinkingBlock", "more thought"),
            ("AssistantMessage", "Part two."),
        ]


async def test_while_it_streams_only_the_newest_lines_show(make_app: MakeApp) -> None:
    gate = asyncio.Event()
    reasoning = "\n".join(f"step {n} of the thought" for n in range(1, 21))
    app = make_app([{"reasoning": reasoning, "text": "ok", "until": gate, "stall_after": 0}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "think hard")
        await settle(pilot, lambda: "step 20 of the thought" in screen_text(app))
        shown = screen_text(app)
        assert "step 15 of the thought" in shown and "step 14 of the thought" not in shown
        gate.set()
        await settle(pilot, lambda: not app.busy)
