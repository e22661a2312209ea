"""The welcome banner at the top of the conversation: the mascot and the wordmark.

It lives inside the chat's scroll, so it scrolls away and never takes room from the
conversation; in a short or narrow terminal it shrinks to one line. It fades in once.
"""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget

from zizou import __version__
from zizou.ui.widgets.mascot_art import FULL_HEIGHT, FULL_WIDTH, compact_art, full_art

TAGLINE = f"v{__version__} · a coding agent in your terminal · /help"
MIN_FULL_HEIGHT = 30  # below this many terminal rows, the one-line form
FADE_S = 0.5


class Mascot(Widget):
    def __init__(self, tagline: str, *, fade: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tagline = tagline
        self.fade = fade

    @property
    def compact(self) -> bool:
        """The one-line form: in a short terminal, or where the art would not fit across (the
        chat is narrower than the terminal while the sidebar shows)."""
        width = self.size.width or self.app.size.width
        return self.app.size.height < MIN_FULL_HEIGHT or width < FULL_WIDTH

    def on_mount(self) -> None:
        self.set_class(self.compact, "-compact")
        if self.fade and self.app.animation_level != "none":
            self.styles.opacity = 0.0
            self.styles.animate("opacity", 1.0, duration=FADE_S)

    def refresh_form(self) -> None:
        """Called when the terminal is resized: pick the full or the one-line form."""
        if self.has_class("-compact") != self.compact:
            self.set_class(self.compact, "-compact")
            self.refresh(layout=True)

    def on_resize(self) -> None:
        self.refresh_form()  # the sidebar shown or hidden changes the room across

    def render(self) -> Text:
        if self.compact:
            return compact_art(self.tagline)
        return full_art(self.tagline)

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        short = self.app.size.height < MIN_FULL_HEIGHT
        return 1 if short or width < FULL_WIDTH else FULL_HEIGHT


__all__ = ["TAGLINE", "Mascot"]
