"""A small dialog asking for a plan item's title: `e` on the sidebar's plan edits one, `a` adds
one. Enter keeps the text, Esc leaves the plan as it was."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

MAX_TITLE_CHARS = 200


class PlanTitleScreen(ModalScreen[str | None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, question: str, title: str = "") -> None:
        super().__init__()
        self.question = question
        self.title_text = title

    def compose(self) -> ComposeResult:
        with Vertical(id="plan-title-dialog"):
            yield Label(Text(self.question, style="bold"))
            yield Input(
                self.title_text,
                max_length=MAX_TITLE_CHARS,
                select_on_focus=False,  # the cursor at the end: typing adds to the title
                id="plan-title-input",
            )
            yield Label(Text("Enter keeps it · Esc cancels", style="dim"))

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        title = " ".join(event.value.split())
        self.dismiss(title or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


__all__ = ["PlanTitleScreen"]
