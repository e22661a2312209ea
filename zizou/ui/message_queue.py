"""Messages sent while a turn runs: kept in order, editable in place, removable, never dropped.

The queue pauses after the user interrupts a turn (Esc): they stopped the agent for a reason,
so the next message waits until they send again. A message being edited holds the queue.
"""

from __future__ import annotations

import itertools

from zizou.ui.widgets.queue_panel import QueuedMessage


class MessageQueue:
    def __init__(self) -> None:
        self.items: list[QueuedMessage] = []
        self.paused = False
        self.editing: int | None = None
        self._ids = itertools.count(1)

    def __len__(self) -> int:
        return len(self.items)

    def add(self, text: str) -> QueuedMessage:
        item = QueuedMessage(next(self._ids), text)
        self.items.append(item)
        return item

    def get(self, item_id: int) -> QueuedMessage | None:
        return next((item for item in self.items if item.id == item_id), None)

    def remove(self, item_id: int) -> bool:
        before = len(self.items)
        self.items = [item for item in self.items if item.id != item_id]
        if self.editing == item_id:
            self.editing = None
        return len(self.items) != before

    def replace(self, item_id: int, text: str) -> bool:
        """Put edited text in place; an emptied message is removed."""
        self.editing = None
        if not text.strip():
            return self.remove(item_id)
        for index, item in enumerate(self.items):
            if item.id == item_id:
                self.items[index] = QueuedMessage(item_id, text)
                return True
        return False

    def pop_ready(self) -> QueuedMessage | None:
        """The next message to send, unless the queue is paused or its head is being edited."""
        if self.paused or not self.items or self.items[0].id == self.editing:
            return None
        return self.items.pop(0)


__all__ = ["MessageQueue"]
