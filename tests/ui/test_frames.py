"""Frames held and let go (`zizou.ui.frames`), in an app with nothing else to draw."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static
from waiting import until

from zizou.ui.frames import TurnFrames


class Still(App[None]):
    """One line of text: no cursor blinks, no timer ticks, nothing redraws by itself."""

    def compose(self) -> ComposeResult:
        yield Static("before", id="line")

    def shown(self) -> str:
        return "\n".join(strip.text for strip in self.screen._compositor.render_strips())


async def test_held_frames_are_drawn_when_let_go_and_at_the_latest_after_the_hold() -> None:
    app = Still()
    async with app.run_test(size=(40, 5)):
        await until(lambda: "before" in app.shown(), "the first frame")
        frames = TurnFrames(app.query_one("#line"))
        frames.hold()
        app.query_one("#line", Static).update("during")
        assert frames.held
        frames.release()
        await until(lambda: "during" in app.shown(), "the frame let go")
        frames.hold()
        app.query_one("#line", Static).update("after")
        await until(lambda: not frames.held and "after" in app.shown(), "the hold's end")
