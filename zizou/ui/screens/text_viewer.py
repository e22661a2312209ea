"""A scrollable, read-only view of a long text, such as the compiled system prompt."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from zizou.ui.text import clean


class TextViewerScreen(ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

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


__all__ = ["TextViewerScreen"]
