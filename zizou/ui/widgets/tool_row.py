"""One row per tool call: `■ name · short args · duration ✓/✗`, which expands (Enter or a
click) to the full arguments and output. Edits and writes show their diff under the row."""

from __future__ import annotations

import time
from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from zizou.ui.text import clean, pretty_arguments, short_args
from zizou.ui.widgets.diff_view import DiffView

OUTPUT_PREVIEW_CHARS = 20_000


class ToolRow(Widget, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,space", "toggle_row", "Expand", show=False)
    ]

    expanded: reactive[bool] = reactive(False)

    def __init__(
        self,
        call_id: str,
        name: str,
        arguments: str,
        *,
        summary: str | None = None,
        show_arguments: bool = True,
    ) -> None:
        super().__init__(classes="-running")
        self.show_arguments = show_arguments
        self.call_id = call_id
        self.tool = name
        self.arguments = arguments
        self.summary = summary if summary is not None else short_args(name, arguments)
        self.started = time.monotonic()
        self.ok: bool | None = None
        self.output = ""
        self.duration_s: float | None = None
        self.waiting = False
        self._timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._header(), classes="tool-header")
        yield Static(classes="tool-body")

    def on_mount(self) -> None:
        self._timer = self.set_interval(1.0, self._refresh_header)

    def _header(self) -> Text:
        text = Text()
        mark_style = {None: "yellow", True: "green", False: "red"}[self.ok]
        text.append("■ ", style=mark_style)
        text.append(self.tool, style="bold")
        if self.summary:
            text.append(" · ")
            text.append(self.summary)
        if self.duration_s is not None:
            text.append(f" · {self.duration_s:.1f}s ")
            text.append("✓" if self.ok else "✗", style=mark_style)
        elif self.waiting:
            text.append(" · waiting for approval", style="italic")
        else:
            text.append(f" · {time.monotonic() - self.started:.0f}s …", style="dim")
        return text

    def _refresh_header(self) -> None:
        self.query_one(".tool-header", Static).update(self._header())

    def awaiting_approval(self, waiting: bool = True) -> None:
        self.waiting = waiting
        self._refresh_header()

    async def finish(self, ok: bool, output: str, duration_s: float, diff: str | None) -> None:
        self.ok, self.output, self.duration_s = ok, clean(output), duration_s
        self.waiting = False
        if self._timer is not None:
            self._timer.stop()
        self.set_class(False, "-running")
        self.set_class(not ok, "-failed")
        self._refresh_header()
        if diff:
            await self.mount(DiffView(diff))
        if self.expanded:
            self._show_body()

    def action_toggle_row(self) -> None:
        self.expanded = not self.expanded

    def on_click(self, event: events.Click) -> None:
        self.expanded = not self.expanded

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")
        if expanded:
            self._show_body()
        for diff in self.query(DiffView):
            diff.show_all(expanded)

    def _show_body(self) -> None:
        body = Text()
        if self.show_arguments:
            body.append("arguments\n", style="bold")
            body.append(clean(pretty_arguments(self.arguments)) + "\n")
        if self.ok is not None:
            body.append("output\n", style="bold")
            shown = self.output[:OUTPUT_PREVIEW_CHARS]
            body.append(shown or "(no output)")
            if len(self.output) > len(shown):
                body.append(f"\n… {len(self.output) - len(shown):,} more characters", style="dim")
        self.query_one(".tool-body", Static).update(body)


__all__ = ["ToolRow"]
