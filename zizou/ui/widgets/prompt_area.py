"""The multi-line prompt: Enter sends, Ctrl+J (or Shift+Enter, or a trailing `\\`) adds a line,
Up and Down walk the history from the first and last lines, Page Up and Page Down scroll the
conversation, and keys steer the completion menu while it is open. It posts what happened; the
Composer (or the app) decides what it means."""

from __future__ import annotations

from textual import events
from textual.message import Message

from zizou.ui.widgets.plain_text_area import TextArea

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})


class PromptArea(TextArea):
    class Submit(Message):
        """Enter on the prompt, with the text it had then (the prompt is empty again at once,
        so keys typed before this is handled start the next message)."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class MenuKey(Message):
        """A key for the completion menu: up, down, tab, enter or escape."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class HistoryKey(Message):
        """Up on the first line or Down on the last: walk the history."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    class PageKey(Message):
        """Page Up or Page Down: scroll the conversation, not the prompt."""

        def __init__(self, key: str) -> None:
            super().__init__()
            self.key = key

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.menu_open = False

    async def _on_key(self, event: events.Key) -> None:
        key = event.key
        handled = True
        if self.menu_open and key in ("up", "down", "tab", "enter", "escape"):
            self.post_message(self.MenuKey(key))
        elif key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "enter" and self._ends_with_backslash():
            row, column = self.cursor_location
            self.replace("\n", (row, column - 1), (row, column))
        elif key == "enter":
            self.submit()
        elif key in ("pageup", "pagedown"):
            self.post_message(self.PageKey(key))
        elif key == "up" and self.cursor_location[0] == 0 and not self.selected_text:
            self.post_message(self.HistoryKey("up"))
        elif key == "down" and self._on_last_line() and not self.selected_text:
            self.post_message(self.HistoryKey("down"))
        else:
            handled = False
        if handled:
            event.stop()
            event.prevent_default()

    def submit(self) -> None:
        text = self.text
        self.load_text("")
        self.post_message(self.Submit(text))

    def _ends_with_backslash(self) -> bool:
        row, column = self.cursor_location
        return column > 0 and self.document.get_line(row)[:column].endswith("\\")

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] >= self.document.line_count - 1

    def replay(self, key: str, character: str | None) -> None:
        """A key typed as a dialog opened over the prompt (`screens.guarded`), as if typed here."""
        if key in NEWLINE_KEYS:
            self.insert("\n")
        elif key == "enter":
            self.submit()
        elif key == "backspace":
            self.action_delete_left()
        elif character and character.isprintable():
            self.insert(character)

    def set_text(self, text: str) -> None:
        """Replace everything, with the cursor at the end."""
        self.load_text(text)
        self.move_cursor(self.document.end)


__all__ = ["PromptArea"]
