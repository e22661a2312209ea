"""The plan in the sidebar: one row per item (☐ pending, ◐ in progress, ☑ done, ⊘ blocked), kept
live as the state changes, and editable from the keyboard once it has the focus (Tab).

The list only shows the items it is handed and posts what the user asked for (`Action`, with
the items as they were shown, so the edit names the item the user saw); the app turns that
into a patch of the task state.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from zizou.ui.plan_edits import PlanAction, PlanItem
from zizou.ui.text import clean

KEYS_HINT = "space done · b blocked\ne edit · a add · d delete\nEsc: back to the prompt"
MARK_STYLES = {"done": "green", "in_progress": "yellow", "blocked": "red"}


class PlanChecklist(OptionList):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "act('toggle')", "Done", show=False),
        Binding("b", "act('block')", "Blocked", show=False),
        Binding("e", "act('edit')", "Edit", show=False),
        Binding("a", "act('add')", "Add", show=False),
        Binding("d,delete", "act('delete')", "Delete", show=False),
    ]

    items: reactive[tuple[PlanItem, ...]] = reactive(tuple)

    class Action(Message):
        """The user asked for `action` on the item at `index` (None: the list is empty) of
        `items`, the plan as it was shown."""

        def __init__(
            self, action: PlanAction, index: int | None, items: tuple[PlanItem, ...]
        ) -> None:
            super().__init__()
            self.action = action
            self.index = index
            self.items = items

    def action_act(self, action: PlanAction) -> None:
        index = self.highlighted
        if index is None and (action != "add" or self.items):
            return
        self.post_message(self.Action(action, index, self.items))

    def watch_items(self, old: tuple[PlanItem, ...], new: tuple[PlanItem, ...]) -> None:
        """Show `new`, the highlight staying on the same item: a new item takes it, and where
        an item went the one after it does."""
        at = self.highlighted
        kept = old[at].id if at is not None and at < len(old) else None
        before = {item.id for item in old}
        self.clear_options()
        self.add_options([Option(item_text(item)) for item in new])
        if not new:
            return
        ids = [item.id for item in new]
        added = [i for i, ident in enumerate(ids) if ident not in before]
        if old and len(added) == 1:
            self.highlighted = added[0]
        elif kept is not None and kept in ids:
            self.highlighted = ids.index(kept)
        else:
            self.highlighted = min(at or 0, len(new) - 1)


def item_text(item: PlanItem) -> Text:
    text = Text()
    text.append(item.mark, style=MARK_STYLES.get(item.status, ""))
    style = {"done": "dim", "in_progress": "bold"}.get(item.status, "")
    text.append(f" {clean(item.title)}", style=style)
    if item.status == "blocked" and item.note:
        text.append(f"\n  {clean(item.note)}", style="dim")
    return text


__all__ = ["KEYS_HINT", "PlanChecklist", "item_text"]
