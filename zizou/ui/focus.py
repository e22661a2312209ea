"""Where the keyboard goes on the main screen. The prompt is home, and typed text never vanishes.

- Tab walks a ring: from the prompt to the queued messages when there are any (as the queue
  panel says), the plan in the sidebar when it is on screen, then the tool rows, newest first
  (Enter expands one), and home again.
- Shift+Tab walks the same ring back, except in the prompt itself: there it switches the mode
  (build, plan), as the app decides (`at_home`); Tab is the way into the ring from the prompt.
- A printable key or a paste that reaches the app while focus is elsewhere (a tool row, the
  queue, the conversation) goes into the prompt, which takes the focus back.
- Esc anywhere but the prompt brings focus home (and does not interrupt the turn).

Dialogs and other screens keep Textual's own focus order.
"""

from __future__ import annotations

from textual.events import Key, Paste
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input

from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.plain_text_area import TextArea
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.sidebar import Sidebar


class FocusRouter:
    """Moves the focus among the main screen's widgets (handed to it: it never asks the app)."""

    def __init__(
        self, composer: Composer, chat: ChatView, panel: QueuePanel, sidebar: Sidebar | None = None
    ) -> None:
        self.composer = composer
        self.chat = chat
        self.panel = panel
        self.sidebar = sidebar

    @property
    def screen(self) -> Screen[object]:
        return self.composer.screen

    @property
    def active(self) -> bool:
        """The main screen is on top (no dialog or picker is open)."""
        return self.screen.is_active

    def _queue(self) -> QueueList | None:
        queue = self.panel.query_one(QueueList)
        return queue if self.panel.display and queue.option_count else None

    def _plan(self) -> Widget | None:
        sidebar = self.sidebar
        return sidebar.checklist if sidebar is not None and sidebar.plan_shown else None

    def move(self, forward: bool) -> bool:
        """Tab (`forward`) or Shift+Tab; False when another screen has the keyboard."""
        if not self.active:
            return False
        prompt = self.composer.area
        from zizou.ui.widgets.tool_row import ToolRow  # none before the first tool call

        rows: list[Widget] = [*self.chat.query(ToolRow)][::-1]  # newest first
        ring = [w for w in (prompt, self._queue(), self._plan(), *rows) if w is not None]
        focused = self.screen.focused
        if focused in ring:
            target = ring[(ring.index(focused) + (1 if forward else -1)) % len(ring)]
        else:
            target = prompt
        target.focus()
        return True

    @property
    def at_home(self) -> bool:
        """The main screen is on top and the prompt has the keyboard."""
        return self.active and self.screen.focused is self.composer.area

    def home(self) -> bool:
        """Esc: back to the prompt; False when the prompt has the focus already."""
        prompt = self.composer.area
        if not self.active or self.screen.focused is prompt:
            return False
        prompt.focus()
        return True

    def claim(self, event: Key | Paste) -> None:
        """Before a key or a paste is handed to the focused widget: if it is text meant for
        nobody there, the prompt takes the focus at once, so it and every key after it land in
        the prompt (a focus change that waited would let the next keys slip past)."""
        prompt = self.composer.area
        if not self.active:
            return
        focused = self.screen.focused
        if focused is prompt or isinstance(focused, TextArea | Input):
            return
        if isinstance(event, Paste):
            text = event.text
        elif event.is_printable and event.key not in self.screen.active_bindings:
            text = event.character or ""  # the queue's `e` and `x` stay the queue's
        else:
            return
        if text:
            self.screen.set_focus(prompt)


__all__ = ["FocusRouter"]
