"""The model's reasoning, where the provider streams it, shown apart from its answer: a dim block
headed `✻ Thinking…` above the answer, showing the last lines as they arrive, then folded to one
line (`✻ Thought for 4s · 120 words`) once the answer starts, a tool call starts or the step
ends. A click or Ctrl+O shows the whole of it again.

Reasoning is often long and fast, and the answer streams right after it: a piece only marks the
widget for a repaint (Textual paints at most once a frame), and a repaint wraps just the tail it
shows, so neither the reasoning nor the answer after it is held up by the block's size.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text
from textual import events
from textual.reactive import reactive
from textual.widget import Widget

from zizou.plural import counted
from zizou.ui.text import StreamSanitizer

TAIL_LINES = 6  # how many of the newest lines show while the reasoning streams
TAIL_CHARS = 4000  # the most of the tail that is wrapped to find those lines
FALLBACK_WIDTH = 100  # before the first layout
HEAD_STYLE = "dim bold"
BODY_STYLE = "dim italic"
SHOW_HINT = "click or ctrl+o to show"
STREAMING_HEAD = "✻ Thinking…"


class ThinkingBlock(Widget):
    """One step's reasoning: streaming, then folded to its summary line."""

    expanded: reactive[bool] = reactive(False, layout=True)

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        super().__init__(classes="-streaming")
        self._parts: list[str] = []
        self._sanitizer = StreamSanitizer()
        self.now = now  # the app's clock, which tests hold
        self.started = now()
        self.took_s: float | None = None  # set when the reasoning ended

    @property
    def finished(self) -> bool:
        return self.took_s is not None

    @property
    def source(self) -> str:
        """The reasoning so far, as sanitized."""
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def write(self, chunk: str) -> None:
        text = self._sanitizer.feed(chunk)
        if text:
            self._parts.append(text)
            self.refresh(layout=True)

    def finish(self) -> None:
        """The reasoning is over (the answer or a tool call follows): fold to one line."""
        if self.finished:
            return
        rest = self._sanitizer.flush()
        if rest:
            self._parts.append(rest)
        self.took_s = self.now() - self.started
        self.remove_class("-streaming")
        self.refresh(layout=True)

    @property
    def summary(self) -> str:
        """The head: `✻ Thinking…` while it streams, then how long it took and how long it is."""
        if self.took_s is None:
            return STREAMING_HEAD
        took = "<1s" if self.took_s < 1 else f"{self.took_s:.0f}s"
        return f"✻ Thought for {took} · {counted(len(self.source.split()), 'word')}"

    def render(self) -> Text:
        if self.finished and not self.expanded:
            line = Text(self.summary, style=HEAD_STYLE, no_wrap=True, overflow="ellipsis")
            line.append(f" ({SHOW_HINT})", style="dim")
            return line
        head = Text(self.summary, style=HEAD_STYLE)
        body = Text(self.source if self.finished else self._tail(), style=BODY_STYLE)
        return Text("\n").join([head, body]) if body.plain else head

    def _tail(self) -> str:
        """The newest TAIL_LINES lines of the reasoning as they wrap at the block's width."""
        width = self.content_size.width or FALLBACK_WIDTH
        tail = Text(self.source[-TAIL_CHARS:])
        lines = tail.wrap(self.app.console, width)
        return "\n".join(line.plain.rstrip() for line in lines[-TAIL_LINES:])

    def on_click(self, event: events.Click) -> None:
        if self.finished:
            self.expanded = not self.expanded

    def watch_expanded(self, expanded: bool) -> None:
        self.set_class(expanded, "-expanded")


__all__ = ["ThinkingBlock"]
