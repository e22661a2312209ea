"""Links in the model's answers open only after the user has seen the full address."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from zizou.ui.screens.guarded import pass_typing_on
from zizou.ui.text import escape_controls


class LinkConfirmScreen(ModalScreen[bool]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y,o", "open", "Open"),
        Binding("n,escape", "cancel", "Cancel"),
    ]

    ANSWERS: ClassVar[frozenset[str]] = frozenset({"y", "o", "n"})

    def __init__(self, url: str) -> None:
        super().__init__()
        self.url = url

    def compose(self) -> ComposeResult:
        with Vertical(id="link-dialog"):
            yield Label(Text("Open this link in your browser?", style="bold"))
            yield Static(Text(escape_controls(self.url, keep_newlines=False)), id="link-url")
            keys = Text()
            keys.append(" y ", style="bold reverse")
            keys.append(" open   ")
            keys.append(" n ", style="bold reverse")
            keys.append(" cancel")
            yield Static(keys)

    def on_key(self, event: Key) -> None:
        pass_typing_on(self, event, self.ANSWERS)

    def action_open(self) -> None:
        self.dismiss(True)

    def action_cancel(self) -> None:
        self.dismiss(False)


def confirm_link(app: App[Any], href: str) -> None:
    """Open `href` only after the user has seen the full address and said yes."""

    def confirmed(ok: bool | None) -> None:
        if ok:
            app.open_url(href)

    app.push_screen(LinkConfirmScreen(href), confirmed)


__all__ = ["LinkConfirmScreen", "confirm_link"]
