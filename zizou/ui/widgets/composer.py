"""The input area: the prompt, its completion menu, and its history.

It posts `Submitted` with the text the user sent and `FilePicked` when an `@file` completion is
accepted (the app pins the file). Sending, queueing and commands are the app's business.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from zizou.ui.completion import Completer, Context, Suggestion, completion_context
from zizou.ui.history import InputHistory
from zizou.ui.widgets.plain_text_area import TextArea
from zizou.ui.widgets.prompt_area import PromptArea

PLACEHOLDER = "Ask zizou…  (Enter send · Ctrl+J newline · / commands · @ files · ! shell)"


class Composer(Vertical):
    class Submitted(Message):
        """The text sent, and the text the prompt was given (`placed`) if it was given one
        since the last send: what the user typed is then only part of it."""

        def __init__(self, text: str, placed: str | None = None) -> None:
            super().__init__()
            self.text = text
            self.placed = placed

    class FilePicked(Message):
        def __init__(self, path: str) -> None:
            super().__init__()
            self.path = path

    def __init__(self, completer: Completer, history: InputHistory | None = None) -> None:
        super().__init__()
        self.completer = completer
        self.history = history or InputHistory()
        self.suggestions: list[Suggestion] = []
        self._completion: Context | None = None
        # The text the prompt was last given (a message put back by /undo, a queued message to
        # edit, a history entry), until it is sent.
        self.placed: str | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="composer-mode")
        yield OptionList(id="completion-menu")
        area = PromptArea(id="prompt")
        area.placeholder = PLACEHOLDER
        yield area

    def on_mount(self) -> None:
        self.query_one(OptionList).can_focus = False

    @property
    def area(self) -> PromptArea:
        return self.query_one(PromptArea)

    @property
    def text(self) -> str:
        return self.area.text

    def set_text(self, text: str) -> None:
        self.area.set_text(text)
        self.placed = text or None

    def set_mode(self, label: str | None) -> None:
        """A line above the prompt, e.g. while a queued message is being edited."""
        mode = self.query_one("#composer-mode", Label)
        mode.update(Text(label or ""))
        mode.display = bool(label)

    def focus_prompt(self) -> None:
        self.area.focus()

    @on(PromptArea.Submit)
    def _submit(self, event: PromptArea.Submit) -> None:
        event.stop()
        self.history.add(event.text)
        self._close_menu()
        placed, self.placed = self.placed, None
        self.post_message(self.Submitted(event.text, placed))

    @on(PromptArea.HistoryKey)
    def _history(self, event: PromptArea.HistoryKey) -> None:
        event.stop()
        up = event.key == "up"
        entry = self.history.previous(self.area.text) if up else self.history.next()
        if entry is not None:
            self.set_text(entry)

    @on(TextArea.Changed)
    @on(TextArea.SelectionChanged)
    def _update_menu(self, event: TextArea.Changed | TextArea.SelectionChanged) -> None:
        row, column = self.area.cursor_location
        context = completion_context(self.area.document.get_line(row), column, row == 0)
        self._completion = context
        if context is None:
            self._close_menu()
            return
        if context.kind == "file" and self.completer.files is None:
            self.run_worker(self._load_files, thread=True, group="files", exclusive=True)
        self._show(self.completer.suggest(context))

    class _FilesLoaded(Message):
        """The project's file list is in (posted from the thread that read it)."""

    def _load_files(self) -> None:
        self.completer.load_files()
        self.post_message(self._FilesLoaded())

    @on(_FilesLoaded)
    def _files_loaded(self, event: _FilesLoaded) -> None:
        event.stop()
        self._update_menu(TextArea.Changed(self.area))

    def _show(self, suggestions: list[Suggestion]) -> None:
        self.suggestions = suggestions
        menu = self.query_one(OptionList)
        menu.clear_options()
        if not suggestions:
            self._close_menu()
            return
        for suggestion in suggestions:
            label = Text(suggestion.label, style="bold")
            if suggestion.help:
                label.append(f"  {suggestion.help}", style="dim")
            menu.add_option(Option(label))
        menu.highlighted = 0
        menu.display = True
        self.area.menu_open = True

    def _close_menu(self) -> None:
        menu = self.query_one(OptionList)
        menu.display = False
        self.area.menu_open = False

    @on(PromptArea.MenuKey)
    def _menu_key(self, event: PromptArea.MenuKey) -> None:
        event.stop()
        menu = self.query_one(OptionList)
        if event.key == "escape":
            self._close_menu()
        elif event.key == "up":
            menu.action_cursor_up()
        elif event.key == "down":
            menu.action_cursor_down()
        elif event.key == "enter" and not self._enter_completes(menu.highlighted or 0):
            self._close_menu()
            self.area.submit()
        elif event.key == "enter" and self._enter_sends(menu.highlighted or 0):
            self.accept(menu.highlighted or 0)
            self.area.submit()
        else:
            self.accept(menu.highlighted or 0)

    def _enter_completes(self, index: int) -> bool:
        """Enter takes a suggestion only when it continues what was typed (no autocorrect)."""
        context = self._completion
        if context is None or index >= len(self.suggestions):
            return False
        prefix = ("/" if context.kind == "command" else "@") + context.query
        return context.kind == "file" or self.suggestions[index].value.startswith(prefix)

    def _enter_sends(self, index: int) -> bool:
        """Enter on a command sends it when it needs no arguments or is typed out already."""
        context = self._completion
        if context is None or context.kind != "command" or index >= len(self.suggestions):
            return False
        suggestion = self.suggestions[index]
        return suggestion.complete or suggestion.value.strip() == f"/{context.query}"

    @on(OptionList.OptionSelected)
    def _clicked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.accept(event.option_index)
        self.area.focus()

    def accept(self, index: int) -> None:
        """Put suggestion `index` in place of the token being completed."""
        context = self._completion
        if context is None or not 0 <= index < len(self.suggestions):
            return
        value = self.suggestions[index].value
        row = self.area.cursor_location[0]
        self.area.replace(value, (row, context.start), (row, context.end))
        self.area.move_cursor((row, context.start + len(value)))
        self._close_menu()
        if context.kind == "file" and self.suggestions[index].file:
            self.post_message(self.FilePicked(value.strip()[1:]))


__all__ = ["PLACEHOLDER", "Composer"]
