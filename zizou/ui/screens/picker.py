"""A list to pick one entry from, or to remove entries from: `/models` and `/permissions`.

A long list (`/models`, `/sessions`) filters as you type: the entries that hold the typed
characters in order stay, best match first, and Backspace takes a character back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Key
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from zizou.ui.fuzzy import fuzzy_score
from zizou.ui.screens.guarded import pass_typing_on


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

    def __init__(
        self, title: str, entries: list[Entry], *, pick: bool = True, filtering: bool = False
    ) -> None:
        super().__init__()
        self.title_text = title
        self.entries = list(entries)
        self.shown = list(entries)  # those the filter keeps, in the order listed
        self.pick = pick
        self.filtering = filtering
        self.query_text = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="picker-dialog"):
            yield Label(Text(self.title_text, style="bold"))
            if self.filtering:
                yield Label(self._filter_text(), id="picker-filter")
            yield OptionList(*self._options(), id="picker-list")
            yield Label(Text(self._hint(), style="dim"), id="picker-empty")

    def _filter_text(self) -> Text:
        if not self.query_text:
            return Text("type to filter", style="dim italic")
        return Text.assemble(("filter: ", "dim"), (self.query_text, "bold"))

    def on_key(self, event: Key) -> None:
        if not self.filtering:  # a key that does nothing here goes on to the prompt
            pass_typing_on(self, event, frozenset({"q", "d"}))
            return
        if event.key == "backspace":
            query = self.query_text[:-1]
        elif event.is_printable and event.character:
            query = self.query_text + event.character
        else:
            return
        event.stop()
        event.prevent_default()
        self._filter(query)

    def _filter(self, query: str) -> None:
        self.query_text = query
        scored = [(fuzzy_score(query, f"{e.label} {e.value}"), e) for e in self.entries]
        kept = [(score, entry) for score, entry in scored if score is not None]
        self.shown = [entry for _, entry in sorted(kept, key=lambda pair: -pair[0])]
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options())
        options.highlighted = 0 if self.shown else None
        self.query_one("#picker-filter", Label).update(self._filter_text())
        self.query_one("#picker-empty", Label).update(Text(self._hint(), style="dim"))

    def _hint(self) -> str:
        if not self.entries:
            return "nothing here yet · Esc closes"
        if not self.shown:
            return "nothing matches · Backspace widens · Esc closes"
        keys = ["Enter picks"] if self.pick else []
        if any(e.removable for e in self.entries):
            keys.append("d removes")
        return " · ".join([*keys, "Esc closes"])

    def _options(self) -> list[Option]:
        options = []
        for entry in self.shown:
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
        entry = self.shown[options.highlighted]
        if not entry.removable:
            self.notify("this rule was not saved from here; it cannot be removed", timeout=3)
            return
        self.entries.remove(entry)
        self.shown.remove(entry)
        options.remove_option_at_index(options.highlighted)
        self.query_one("#picker-empty", Label).update(Text(self._hint(), style="dim"))
        self.post_message(self.Removed(entry.value))

    def action_close(self) -> None:
        self.dismiss(None)


__all__ = ["Entry", "PickerScreen"]
