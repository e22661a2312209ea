"""How much work an answer costs the app, counted (never timed): an answer that is whole before
it is first laid out is composed once, whole, and drawn with the user's message in one frame; a
long stream goes to one FrozenMarkdown, and Textual's Markdown is never restarted with the rest
of the text after a cut."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Markdown
from ui_harness import MakeApp, send, settle
from waiting import scaled

from zizou.ui.app import ZizouApp
from zizou.ui.frames import TurnFrames
from zizou.ui.widgets import frozen_markdown
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.frozen_markdown import FrozenMarkdown
from zizou.ui.widgets.messages import AssistantMessage


def answer(paragraphs: int) -> str:
    body = "".join(f"paragraph {n}: some **bold** words and `code`.\n\n" for n in range(paragraphs))
    return body + "the last words"


class Work:
    """What the answer's widgets were given: the texts Textual's Markdown parsed (whole, by
    `update`, or from its last block on, by `append`) and the stretches FrozenMarkdown took.
    The spies call through: the app does what it would."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.markdown: list[tuple[str, str]] = []
        self.frozen: list[tuple[str, str]] = []
        update, append, frozen_append = Markdown.update, Markdown.append, FrozenMarkdown.append

        def spy_update(widget: Markdown, text: str) -> Any:
            if text and in_answer(widget):
                self.markdown.append(("update", text))
            return update(widget, text)

        def spy_append(widget: Markdown, text: str) -> Any:
            if in_answer(widget):
                self.markdown.append(("append", text))
            return append(widget, text)

        def spy_frozen(widget: FrozenMarkdown, stretch: str, *end: str) -> None:
            self.frozen.append((stretch, "".join(end)))
            frozen_append(widget, stretch, *end)

        monkeypatch.setattr(Markdown, "update", spy_update)
        monkeypatch.setattr(Markdown, "append", spy_append)
        monkeypatch.setattr(FrozenMarkdown, "append", spy_frozen)

    @property
    def restarts(self) -> int:
        """How often the live Markdown was given a whole new text after it first had one."""
        return max(0, sum(1 for kind, _ in self.markdown if kind == "update") - 1)


def in_answer(widget: Markdown) -> bool:
    return any(isinstance(node, AssistantMessage) for node in widget.ancestors)


def screen_text(app: ZizouApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def chat_text(app: ZizouApp) -> str:
    """What the conversation shows (not the prompt)."""
    region = app.query_one(ChatView).region
    strips = app.screen._compositor.render_strips()[region.y : region.bottom]
    return "\n".join(strip.text for strip in strips)


class Frames:
    """The layouts the screen ran and the frames it drew (each as the text on screen, and the
    layouts run by then), from `start()` on. The spies call through."""

    def __init__(self, app: ZizouApp, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counting = False
        self.layouts = 0
        self.shown: list[str] = []
        self.layouts_by: list[int] = []  # at each frame
        refresh_layout, display = Screen._refresh_layout, app._display

        def spy_layout(screen: Screen[object], *args: Any, **kwargs: Any) -> None:
            self.layouts += self.counting
            refresh_layout(screen, *args, **kwargs)

        def spy_display(screen: Screen[object], renderable: Any) -> None:
            display(screen, renderable)
            if self.counting:
                self.shown.append(screen_text(app))
                self.layouts_by.append(self.layouts)

        monkeypatch.setattr(Screen, "_refresh_layout", spy_layout)
        monkeypatch.setattr(app, "_display", spy_display)

    def start(self) -> None:
        self.counting = True

    def first_with(self, text: str) -> int:
        return next(number for number, shown in enumerate(self.shown) if text in shown)


async def test_an_answer_whole_before_its_first_layout_is_composed_once(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = Work(monkeypatch)
    text = answer(300)  # a burst: 500 chunks with no pause, as a model faster than the screen
    app = make_app([{"text": text, "pieces": 500}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and "the last words" in screen_text(app))
        (message,) = app.query(AssistantMessage)
        assert message.source == text
        assert work.markdown == []  # never streamed into Textual's Markdown, nor restarted
        assert len(work.frozen) == 1  # the whole answer, in one append
        assert "".join(work.frozen[0]) == text
        assert app.query_one(FrozenMarkdown).source == text


async def test_a_long_stream_appends_to_one_frozen_markdown(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = Work(monkeypatch)
    text = answer(120)
    app = make_app([{"text": text, "pieces": 120, "chunk_delay_s": 0.01}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and "the last words" in screen_text(app))
        (message,) = app.query(AssistantMessage)
        assert message.source == text
        assert len(work.frozen) > 2  # it streamed: appended at several flushes
        assert work.restarts == 0  # the live Markdown was not given each cut's rest anew
        assert not message.query(Markdown)  # a long answer is all in the frozen part
        frozen = message.query_one(FrozenMarkdown)
        assert frozen.source == text
        shown_ends = [end for _, end in work.frozen]
        assert "".join(stretch for stretch, _ in work.frozen) + shown_ends[-1] == text


async def test_a_long_answer_renders_no_more_of_its_end_than_the_view_shows(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(frozen_markdown, "FILL_AFTER_S", 3600.0)  # only what the layout renders
    app = make_app(
        [{"text": answer(302), "pieces": 500}]
    )  # its end fills the view short of 30 lines
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and "the last words" in screen_text(app))
        frozen, chat = app.query_one(FrozenMarkdown), app.query_one(ChatView)
        heights = [len(strips) for strips in frozen._strips if strips is not None]
        assert None not in frozen._strips[-len(heights) :]  # the pieces at the end
        view = chat.scrollable_content_region.height  # the screen's less the prompt's and more
        assert sum(heights[1:]) < view <= sum(heights)  # one piece fewer would leave a gap


async def test_a_quick_answer_is_drawn_with_the_message_in_one_frame(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model that answers in one burst while the frames are held (50 ms from the sending; here
    longer, so a loaded machine counts the same): no frame shows the message before its answer,
    and from Enter to the answer's end on screen the screen is laid out twice: once for the
    prompt emptied by Enter, once for the message with its answer."""
    monkeypatch.setattr(TurnFrames, "HOLD_S", scaled(10))
    app = make_app([{"text": answer(300), "pieces": 500, "delay_s": 0.05}])
    frames = Frames(app, monkeypatch)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        app.composer.set_text("a question sent once")
        await settle(pilot)
        frames.start()
        await pilot.press("enter")
        await settle(pilot, lambda: not app.busy and "the last words" in screen_text(app))
        end = frames.first_with("the last words")
        assert not any("a question sent once" in shown for shown in frames.shown[:end])
        assert frames.layouts_by[end] <= 2
        await settle(pilot)
        assert frames.layouts <= 4  # and after: once more for the new sizes, once for the bar


async def test_a_slow_turn_shows_the_message_before_it_ends(make_app: MakeApp) -> None:
    """The frames are held for a moment only: a turn still waiting for its model shows the
    message all the same."""
    reply = asyncio.Event()
    app = make_app([{"text": "the answer", "stall_after": 0, "until": reply}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "a question sent once")
        await settle(pilot, lambda: "a question sent once" in chat_text(app))
        assert app.busy and "the answer" not in chat_text(app)
        reply.set()
        await settle(pilot, lambda: not app.busy and "the answer" in chat_text(app))
