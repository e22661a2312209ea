"""The conversation's simple entries: the user's messages, the assistant's streamed Markdown,
notices (info, warnings, errors with their fix) and retry countdowns.

Model text reaches the screen only through Markdown (which never reads Textual markup) or
`rich.text.Text`, after the terminal controls are stripped.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from zizou.ui.markdown_cut import safe_cut
from zizou.ui.text import StreamSanitizer, clean

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from zizou.ui.widgets.frozen_markdown import FrozenMarkdown

# Once an answer is this long (and has a finished stretch), it moves to a FrozenMarkdown: the
# live Markdown, a widget per block, would grow with the answer and every layout walk it.
SEGMENT_CHARS = 400
NoticeKind = Literal["info", "warning", "error", "success"]
_RETRY_TAIL = re.compile(r",? retrying (?:now|in [\d.]+ s) \(attempt \d+ of (\d+)\)$")
ROW_NAME_WIDTH = 30  # the first column of `rows`: a longer name wraps within it
_ICONS = {"info": "•", "warning": "!", "error": "✗", "success": "✓"}


class TypingClock:
    """When the user last pressed a key: the app sets it, streamed answers wait for a pause,
    and dialogs arm once they have been on screen a while. The time comes from `now` (the
    monotonic clock; tests give a clock they move on themselves)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.last_key_at: float | None = None
        self.key_before_at: float | None = None  # the key before the last one

    def pressed(self) -> None:
        self.key_before_at, self.last_key_at = self.last_key_at, self.now()

    def idle_s(self) -> float:
        """Seconds since the last key (infinite before the first)."""
        last = self.last_key_at
        return math.inf if last is None else self.now() - last


class UserMessage(Static):
    def __init__(self, text: str) -> None:
        super().__init__(Text(clean(text)), classes="user-message")
        self.text = text


Rows = Sequence[tuple[str, str]]  # a name and what it does, such as /help's commands


class Notice(Static):
    """One line or a few: what happened, and for errors, what to do about it. `rows` follow
    the message as two columns, the second wrapping under itself (not under the first)."""

    def __init__(
        self, message: str, kind: NoticeKind = "info", fix: str | None = None, rows: Rows = ()
    ) -> None:
        text = Text(f"{_ICONS[kind]} ", style="bold")
        text.append(clean(message))
        if fix:
            text.append(f"\n  {clean(fix)}", style="italic")
        super().__init__(Group(text, _grid(rows)) if rows else text, classes=f"notice -{kind}")
        self.message = "\n".join([message, *(f"  {name}  {what}" for name, what in rows)])
        self.has_rows = bool(rows)


def _grid(rows: Rows) -> Table:
    grid = Table.grid(padding=(0, 2), pad_edge=True)
    grid.add_column(no_wrap=False, max_width=ROW_NAME_WIDTH, style="bold")
    grid.add_column(ratio=1)
    for name, what in rows:
        grid.add_row(Text(clean(name)), Text(clean(what)))
    return grid


class AssistantMessage(Widget):
    """Markdown that grows as the model streams; appended to, never re-rendered whole.

    A chunk is only kept: the chunks are cleaned and shown together at most every FLUSH_S, so
    a fast stream costs a few appends a second instead of one per chunk. A short answer is
    Textual's Markdown; once an answer is longer than SEGMENT_CHARS, it moves whole to one
    FrozenMarkdown, which renders only what is seen and, as the answer grows, only its end, so
    the cost of an append stays small however long the answer grows. An answer that is whole
    before the message is first laid out (a burst, a resumed session) is composed as it ends,
    never streamed. While the user types, an append (and the repaint it brings) waits for a
    pause in the typing, for up to MAX_HOLD_S, so their keystrokes echo at once.
    """

    FLUSH_S = 0.15
    TYPING_PAUSE_S = 0.15
    MAX_HOLD_S = 1.0

    def __init__(self, typing: TypingClock | None = None) -> None:
        super().__init__(classes="assistant-message")
        self.typing = typing or TypingClock()
        self._chunks: list[str] = []  # as they came, not yet cleaned
        self._parts: list[str] = []  # the answer so far, cleaned
        self._sanitizer = StreamSanitizer()
        self._pending: list[str] = []  # cleaned, not yet shown
        self._live = ""  # what the live Markdown holds (while the answer is short)
        self._end = ""  # the unfinished end the frozen part shows (once it is long)
        self._wake = asyncio.Event()
        self._mounted = asyncio.Event()
        self._flusher: asyncio.Task[None] | None = None
        self._frozen: FrozenMarkdown | None = None
        self._composed = False
        self._finished = False

    def compose(self) -> ComposeResult:
        from textual.widgets import Markdown

        self._composed = True
        self._clean()
        text = "".join(self._pending)  # all that came before the first layout: maybe all of it
        self._pending.clear()
        if cut := _cut(text):
            from zizou.ui.widgets.frozen_markdown import FrozenMarkdown  # imports rich.markdown

            self._end = text[cut:]
            self._frozen = FrozenMarkdown()
            self._frozen.append(text[:cut], self._end)
            yield self._frozen
        else:
            self._live = text
            yield Markdown(text, open_links=False)

    async def mount_composed_widgets(self, widgets: list[Widget]) -> None:
        """No frame shows the message before its parts are in it (a long one would be blank)."""
        with self.app.batch_update():
            await super().mount_composed_widgets(widgets)

    def on_mount(self) -> None:
        self._mounted.set()

    @property
    def markdown(self) -> Markdown:
        """The live Markdown of a short answer."""
        from textual.widgets import Markdown

        return self.query_one(Markdown)

    def write(self, chunk: str) -> None:
        self._chunks.append(chunk)
        self._wake.set()
        if self._flusher is None and not self._finished:
            self._flusher = asyncio.create_task(self._flush_loop())

    @property
    def source(self) -> str:
        """The answer so far, as cleaned (parts are joined on demand: a long answer arrives in
        thousands of chunks)."""
        self._clean()
        if len(self._parts) > 1:
            self._parts[:] = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    def _clean(self, end: bool = False) -> None:
        """Clean the chunks that came since the last call, all at once; `end`: the stream
        ended, and an escape sequence it cut short goes too."""
        text = self._sanitizer.feed("".join(self._chunks)) if self._chunks else ""
        self._chunks.clear()
        if end:
            text += self._sanitizer.flush()
        if text:
            self._parts.append(text)
            self._pending.append(text)

    async def _flush_loop(self) -> None:
        await self._mounted.wait()
        while True:
            await self._wake.wait()
            self._wake.clear()
            await self._typing_pause()
            await self._flush()
            await asyncio.sleep(self.FLUSH_S)

    async def _typing_pause(self) -> None:
        deadline = self.typing.now() + self.MAX_HOLD_S
        while (idle := self.typing.idle_s()) < self.TYPING_PAUSE_S:
            if self.typing.now() >= deadline:
                return
            await asyncio.sleep(self.TYPING_PAUSE_S - idle)

    async def _flush(self) -> None:
        self._clean(end=self._finished)
        if not self._pending:
            return
        text = "".join(self._pending)
        self._pending.clear()
        if self._frozen is not None:
            combined = self._end + text
            cut = safe_cut(combined, 0)
            self._end = combined[cut:]
            self._frozen.append(combined[:cut], self._end)
            return
        combined = self._live + text
        cut = _cut(combined)
        if cut:
            await asyncio.shield(self._freeze(combined[:cut], combined[cut:]))
        else:
            self._live = combined
            await asyncio.shield(self.markdown.append(text))

    async def _freeze(self, head: str, end: str) -> None:
        """The answer has grown long: all of it moves to a FrozenMarkdown, in place of the
        live Markdown."""
        from zizou.ui.widgets.frozen_markdown import FrozenMarkdown  # imports rich.markdown

        self._live, self._end = "", end
        live = self.markdown
        self._frozen = FrozenMarkdown()
        self._frozen.append(head, end)
        with self.app.batch_update():  # one frame shows the swap
            await self.mount(self._frozen, before=live)
            await live.remove()

    async def finish(self) -> None:
        """Show what is left and stop streaming; the widget keeps its text. Before the first
        layout, nothing is shown yet: the message is composed with the whole answer, and is in
        the conversation when this returns."""
        self._finished = True
        flusher, self._flusher = self._flusher, None
        if not self._composed:  # decided before anything here lets the app lay it out
            if flusher is not None:
                flusher.cancel()  # it waits for the first layout, and has shown nothing
            self._clean(end=True)
            await self._mounted.wait()
            return
        if flusher is not None:
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
        await self._mounted.wait()
        await self._flush()


def _cut(text: str) -> int:
    """Where a finished stretch of `text` ends, once it is long enough to move to a
    FrozenMarkdown; 0 if not."""
    return safe_cut(text, SEGMENT_CHARS) if len(text) > SEGMENT_CHARS else 0


class RetryNotice(Static):
    """`↻ retrying in 4 s (attempt 2 of 5): rate limited by openai`, counting down to the next
    attempt: one delay, the live one (the reason's own "retrying in 12 s" is left out)."""

    def __init__(self, attempt: int, delay_s: float, reason: str) -> None:
        super().__init__(classes="notice -warning retry")
        said = _RETRY_TAIL.search(clean(reason))
        self.attempt = f"{attempt} of {said.group(1)}" if said else str(attempt)
        self.reason = clean(reason)[: said.start()] if said else clean(reason)
        self.deadline = time.monotonic() + delay_s
        self._timer: Timer | None = None

    def on_mount(self) -> None:
        self._tick()
        self._timer = self.set_interval(0.5, self._tick)

    def _tick(self) -> None:
        left = self.deadline - time.monotonic()
        if left > 0:
            when = f"in {left:.0f} s"
        else:
            when = "now"
            if self._timer is not None:
                self._timer.stop()
        line = Text(f"↻ retrying {when} (attempt {self.attempt}): ", style="bold")
        line.append(self.reason)
        self.update(line)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()


__all__ = ["AssistantMessage", "Notice", "NoticeKind", "RetryNotice", "TypingClock", "UserMessage"]
