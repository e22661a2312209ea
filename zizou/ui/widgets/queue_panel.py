"""Messages typed while a turn runs wait here, in order, until the agent is free.

Each can be edited (it stays in its place) or removed; nothing typed is ever dropped. The app
owns the queue and hands the panel its items; the panel posts what the user asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from zizou.ui.text import one_line


@dataclass(frozen=True)
class QueuedMessage:
    id: int
    text: str


class QueueList(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("e,enter", "edit", "Edit"),
        Binding("delete,backspace,x", "remove", "Remove"),
    ]

    class Edit(Message):
        def __init__(self, item_id: int) -> None:
            super().__init__()
            self.item_id = item_id

    class Remove(Message):
        def __init__(self, item_id: int) -> None:
            super().__init__()
            self.item_id = item_id

    def _selected_id(self) -> int | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return int(option.id) if option.id is not None else None

    def action_edit(self) -> None:
        if (item_id := self._selected_id()) is not None:
            self.post_message(self.Edit(item_id))

    def action_remove(self) -> None:
        if (item_id := self._selected_id()) is not None:
            self.post_message(self.Remove(item_id))


class QueuePanel(Vertical):
    items: reactive[tuple[QueuedMessage, ...]] = reactive(tuple)
    paused: reactive[bool] = reactive(False)
    editing: reactive[int | None] = reactive(None)

    def compose(self) -> ComposeResult:
        yield Label(id="queue-title")
        yield QueueList(id="queue-list")

    def on_mount(self) -> None:
        self._render_items()

    def watch_items(self) -> None:
        self._render_items()

    def watch_paused(self) -> None:
        self._render_items()

    def watch_editing(self) -> None:
        self._render_items()

    def _render_items(self) -> None:
        if not self.is_mounted:
            return
        self.display = bool(self.items)
        count = len(self.items)
        if self.paused:
            title = f"queued ({count}) · paused after Esc · Enter on an empty prompt sends"
        else:
            title = f"queued ({count}) · sent in order · Tab to pick one: e edit · x remove"
        self.query_one("#queue-title", Label).update(Text(title))
        options = self.query_one(QueueList)
        highlighted = options.highlighted
        options.clear_options()
        for number, item in enumerate(self.items, 1):
            label = Text(f"{number}. ", style="bold")
            label.append(one_line(item.text, 200))
            if item.id == self.editing:
                label.append("  (editing)", style="italic")
            options.add_option(Option(label, id=str(item.id)))
        if self.items:
            options.highlighted = min(highlighted or 0, len(self.items) - 1)


__all__ = ["QueueList", "QueuePanel", "QueuedMessage"]
