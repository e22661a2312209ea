"""A yes/no question that must be answered before something is undone, such as forgetting a key."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from zizou.ui.screens.guarded import pass_typing_on


class ConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    ANSWERS: ClassVar[frozenset[str]] = frozenset({"y", "n"})

    def __init__(self, question: str, detail: str = "") -> None:
        super().__init__()
        self.question = question
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-dialog"):
            yield Label(Text(self.question, style="bold"))
            if self.detail:  # a long one (every file an undo changes) scrolls
                with VerticalScroll(id="confirm-scroll"):
                    yield Static(Text(self.detail), id="confirm-detail")
            keys = Text()
            keys.append(" y ", style="bold reverse")
            keys.append(" yes   ")
            keys.append(" n ", style="bold reverse")
            keys.append(" no")
            yield Static(keys)

    def on_key(self, event: Key) -> None:
        pass_typing_on(self, event, self.ANSWERS)

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


__all__ = ["ConfirmScreen"]
