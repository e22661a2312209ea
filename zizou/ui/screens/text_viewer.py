"""A scrollable, read-only view of a long text, such as the compiled system prompt.

It only shows: a character typed over it is meant for the prompt, so the view closes and the
character goes there (a read-only text would drop it). Enter closes it too; the keys that move
(arrows, Page Up, Home) scroll it.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Label

from zizou.ui.screens.guarded import TypedAhead
from zizou.ui.text import clean
from zizou.ui.widgets.plain_text_area import TextArea


class TextViewerScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close")]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.title_text = title
        self.text = clean(text)

    def compose(self) -> ComposeResult:
        with Vertical(id="viewer-dialog"):
            yield Label(Text(f"{self.title_text}  (Esc closes)", style="bold"))
            yield TextArea(self.text, read_only=True, soft_wrap=True, id="viewer-text")

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def on_key(self, event: Key) -> None:
        if event.key != "enter" and not event.is_printable:
            return
        event.stop()
        event.prevent_default()
        if event.key != "enter":
            self.app.post_message(TypedAhead(event.key, event.character))
        self.dismiss(None)


__all__ = ["TextViewerScreen"]
