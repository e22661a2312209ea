"""A long answer: its finished stretches are rendered only when needed, the end shows at once,
the rest settles without moving what the user reads, and its links still ask first."""

from __future__ import annotations

import pytest
from textual.strip import Strip
from ui_harness import MakeApp, send, settle

from zizou.ui.app import ZizouApp
from zizou.ui.markdown_cut import split_stretches
from zizou.ui.screens.link_confirm import LinkConfirmScreen
from zizou.ui.widgets import frozen_markdown
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.frozen_markdown import STRETCH_CHARS, FrozenMarkdown, estimate_height


def answer(paragraphs: int, *, code_every: int = 0) -> str:
    parts = []
    for n in range(paragraphs):
        parts.append(f"paragraph {n}: some **bold** words and `code` in a sentence.\n\n")
        if code_every and n % code_every == 0:
            parts.append(f"```python\ndef f{n}():\n\n    return {n}\n```\n\n")
    return "".join(parts) + "the last words"


def screen_lines(app: ZizouApp) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def widget_text(widget: FrozenMarkdown) -> str:
    lines: list[Strip] = [widget.render_line(y) for y in range(widget.virtual_size.height)]
    return "\n".join(line.text for line in lines)


def test_stretches_join_back_and_never_cut_inside_a_fence() -> None:
    text = answer(200, code_every=3)
    pieces = split_stretches(text, 100)
    assert "".join(pieces) == text
    assert len(pieces) > 20
    for piece in pieces[:-1]:
        assert piece.endswith("\n\n") and len(piece) >= 100
        assert piece.count("```") % 2 == 0  # a code block stays whole


def test_height_estimate_wraps_lines_and_folds_blank_runs() -> None:
    assert estimate_height("one\n\n\n\ntwo", 80) == 3
    assert estimate_height("x" * 170, 80) == 3
    assert estimate_height("", 80) == 1


def hold_filling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rendering off screen waits for the test: a slow machine could otherwise reach what the
    test looks at after the pause that starts it, with every piece already rendered."""
    monkeypatch.setattr(frozen_markdown, "FILL_AFTER_S", 3600.0)


def let_fill(monkeypatch: pytest.MonkeyPatch, frozen: FrozenMarkdown) -> None:
    """Start rendering off screen, in slices as the app takes them, but one after another
    rather than a frame apart (a test has no keys to keep flowing)."""
    monkeypatch.setattr(frozen_markdown, "FILL_AFTER_S", 0.01)
    monkeypatch.setattr(frozen_markdown, "FILL_EVERY_S", 0.001)
    frozen._start_filling()


async def test_a_long_answer_shows_its_end_before_the_rest_is_rendered(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    hold_filling(monkeypatch)
    text = answer(1500)
    app = make_app([{"text": text, "pieces": 500}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and any(app.query(FrozenMarkdown)))
        frozen = app.query_one(FrozenMarkdown)
        assert len(frozen.pieces) > len(text) // (2 * STRETCH_CHARS)
        assert any("the last words" in line for line in screen_lines(app))
        assert frozen.rendered < len(frozen.pieces) // 4  # only what is near the view
        let_fill(monkeypatch, frozen)
        await settle(pilot, lambda: frozen.rendered == len(frozen.pieces))
        shown = widget_text(frozen)
        assert "paragraph 0: some bold words and code in a sentence." in shown
        assert shown.index("paragraph 0:") < shown.index("paragraph 700:")


def read_text(app: object) -> list[str]:
    """The paragraphs in view, without the scrollbar's column: its thumb moves as the heights
    below the view settle, the text being read must not."""
    return [line[:-1].rstrip() for line in screen_lines(app)[5:15] if "paragraph" in line]


async def test_text_being_read_stays_put_while_the_rest_settles(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # every piece's height is guessed short, so each one rendered above the view grows
    monkeypatch.setattr(frozen_markdown, "estimate_height", lambda source, width: 2)
    hold_filling(monkeypatch)  # until the test has scrolled and read
    app = make_app([{"text": answer(600, code_every=2), "pieces": 300}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and any(app.query(FrozenMarkdown)))
        frozen, chat = app.query_one(FrozenMarkdown), app.query_one(ChatView)
        chat.scroll_to(y=chat.max_scroll_y * 0.6, animate=False, immediate=True)
        await pilot.pause()
        before = read_text(app)
        assert before and frozen.rendered < len(frozen.pieces)
        pieces = len(frozen.pieces)  # all rendered, and the guessed heights replaced
        let_fill(monkeypatch, frozen)
        await settle(
            pilot, lambda: frozen.rendered == pieces and frozen.virtual_size.height > 4 * pieces
        )

        def read_now() -> list[str]:
            return read_text(app)

        # The last heights land on a refresh of their own: the text is back where it was read
        # once they have (on a loaded machine that can be a frame after the count is reached).
        try:
            await settle(pilot, lambda: read_now() == before, limit_s=5)
        except AssertionError:
            pass  # said by the assertion below, with both screens
        assert read_now() == before
        assert frozen.virtual_size.height > 4 * len(frozen.pieces)  # the guesses were replaced


async def test_a_link_in_a_finished_stretch_asks_before_opening(make_app: MakeApp) -> None:
    text = "See [the docs](https://example.test/docs?q=1) first.\n\n" + answer(200)
    app = make_app([{"text": text, "pieces": 50}])
    opened: list[str] = []
    app.open_url = lambda url, **_: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: not app.busy and any(app.query(FrozenMarkdown)))
        app.query_one(ChatView).scroll_home(animate=False, immediate=True)
        await pilot.pause()
        rows = screen_lines(app)
        y = next(i for i, row in enumerate(rows) if "the docs" in row)
        await pilot.click(offset=(rows[y].index("the docs") + 2, y))
        await settle(pilot, lambda: isinstance(app.screen, LinkConfirmScreen))
        shown = str(app.screen.query_one("#link-url").render())
        assert shown == "https://example.test/docs?q=1" and opened == []
        await pilot.press("y")
        await pilot.pause()
        assert opened == ["https://example.test/docs?q=1"]
