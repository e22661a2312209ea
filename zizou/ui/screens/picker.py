"""A list to pick one entry from, or to remove entries from: `/models` and `/permissions`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option


@dataclass(frozen=True)
class Entry:
    value: str
    label: str
    note: str = ""
    removable: bool = False


class PickerScreen(ModalScreen[str | None]):
    """Enter picks an entry (the screen returns its value); `d` removes a removable one."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close"),
        Binding("d,delete", "remove", "Remove"),
    ]

    class Removed(Message):
        def __init__(self, value: str) -> None:
            super().__init__()
            self.value = value

    def __init__(self, title: str, entries: list[Entry], *, pick: bool = True) -> None:
        super().__init__()
        self.title_text = title
        self.entries = list(entries)
        self.pick = pick

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Label(Text(self.title_text, style="bold"))
            yield OptionList(*self._options(), id="picker-list")
            yield Label(Text(self._hint(), style="dim"), id="picker-empty")

    def _hint(self) -> str:
        if not self.entries:
            return "nothing here yet · Esc closes"
        keys = ["Enter picks"] if self.pick else []
        if any(e.removable for e in self.entries):
            keys.append("d removes")
        return " · ".join([*keys, "Esc closes"])

    def _options(self) -> list[Option]:
        options = []
        for entry in self.entries:
            label = Text(entry.label, style="bold")
            if entry.note:
                label.append(f"  {entry.note}", style="dim")
            options.append(Option(label, id=entry.value))
        return options

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        if self.pick:
            self.dismiss(event.option.id)

    def action_remove(self) -> None:
        options = self.query_one(OptionList)
        if options.highlighted is None:
            return
        entry = self.entries[options.highlighted]
        if not entry.removable:
            self.notify("this rule was not saved from here; it cannot be removed", timeout=3)
            return
        self.entries.remove(entry)
        options.remove_option_at_index(options.highlighted)
        self.query_one("#picker-empty", Label).update(Text(self._hint(), style="dim"))
        self.post_message(self.Removed(entry.value))

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["Entry", "PickerScreen"]
