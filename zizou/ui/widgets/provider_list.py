"""The wizard's first step: the providers, where each one's key comes from now (masked), and
where new keys would be kept. Enter posts `Picked`; `d` posts `Forget` for a stored key."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zizou.ui.key_setup import ProviderRow


class ProviderList(Vertical):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("d,delete", "forget", "Forget key", show=False)
    ]

    class Picked(Message):
        def __init__(self, row: ProviderRow) -> None:
            super().__init__()
            self.row = row

    class Forget(Message):
        def __init__(self, row: ProviderRow) -> None:
            super().__init__()
            self.row = row

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.rows: list[ProviderRow] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="provider-store")
        yield OptionList(id="provider-list")

    def focus_list(self) -> None:
        self.query_one(OptionList).focus()

    def show(self, rows: list[ProviderRow], store_words: str, wanted: str | None) -> None:
        """List `rows`; highlight the one highlighted before, else `wanted`, else the current."""
        self.rows = rows
        self.query_one("#provider-store", Static).update(Text(store_words))
        options = self.query_one(OptionList)
        before = options.highlighted
        options.clear_options()
        for row in rows:
            label = Text(f"{row.provider.name:<14}", style="bold")
            label.append(row.status, style="dim")
            if row.current:
                label.append("  ● current model", style="bold")
            options.add_option(Option(label, id=row.provider.id))
        first = [i for i, r in enumerate(rows) if r.provider.id == wanted]
        current = [i for i, r in enumerate(rows) if r.current]
        options.highlighted = before if before is not None else (first or current or [0])[0]

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Picked(self.rows[event.option_index]))

    def action_forget(self) -> None:
        highlighted = self.query_one(OptionList).highlighted
        if highlighted is not None and highlighted < len(self.rows):
            self.post_message(self.Forget(self.rows[highlighted]))


__all__ = ["ProviderList"]
