"""A long answer: stretches of Markdown rendered only when they are needed.

Textual's Markdown builds a widget per block, which is what lets it stream; but a 100 KB
answer becomes thousands of widgets and every layout walks them all. So once an answer is a few
hundred characters long, all of it moves here: each complete stretch (it ends at a paragraph
break outside a code fence) split into pieces of a few hundred characters, and the unfinished
end as one more piece, rendered again only when the stream adds to it. Rich parses and renders
a piece only when it is to be seen: the pieces at the end (where the view follows the stream) at
layout, a piece scrolled to when it is drawn, and the others in small slices between frames, so
a long answer paints as soon as its last screenful is ready and the app never stalls to render
what nobody is looking at. Until a piece is rendered its height is estimated from its source.

Rich reads no console markup here. Links are not left to the terminal: each becomes a click
that asks the app, which shows the full address before opening it (as for the live Markdown).
"""

from __future__ import annotations

import time
from bisect import bisect_right
from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, Markdown, MarkdownElement
from rich.segment import Segment
from rich.style import Style
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from zizou.ui.markdown_cut import split_stretches

STRETCH_CHARS = 400  # the unit of lazy rendering: a few lines of the answer
FILL_AFTER_S = 0.5  # rendering off screen waits for the stream to pause this long,
FILL_SLICE_S = 0.004  # then takes at most this long at a time...
FILL_EVERY_S = 0.02  # ...this often, so keys and frames keep flowing


class _LeftHeading(Heading):
    """Headings on the left, bold, as Textual's Markdown shows them."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text.copy()
        text.stylize("bold underline" if self.tag in ("h1", "h2") else "bold")
        yield text


class _Markdown(Markdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **Markdown.elements,
        "heading_open": _LeftHeading,
    }


def estimate_height(source: str, width: int) -> int:
    """About how many lines Rich will render `source` into at `width`: each source line wrapped,
    runs of blank lines as one."""
    lines, blank = 0, True
    for line in source.strip("\n").split("\n"):
        if line.strip():
            lines += max(1, -(-len(line) // max(1, width)))
            blank = False
        elif not blank:
            lines += 1
            blank = True
    return max(1, lines)


def _clickable(segments: list[Segment]) -> list[Segment]:
    """Each link as a click the app confirms, never a terminal hyperlink."""
    out = []
    for text, style, control in segments:
        if style is not None and style.link:
            click = Style.from_meta({"@click": f"link({style.link!r})"})
            style = style.update_link(None) + click
        out.append(Segment(text, style, control))
    return out


class FrozenMarkdown(Widget):
    """Finished stretches of an answer, each rendered at most once per width."""

    class LinkClicked(Message):
        def __init__(self, href: str) -> None:
            super().__init__()
            self.href = href

    def __init__(self, source: str = "") -> None:
        super().__init__()
        self.pieces: list[str] = []
        self._parsed: list[_Markdown | None] = []
        self._strips: list[list[Strip] | None] = []  # at `_width`; None until rendered
        self._heights: list[int] = []  # rendered, or estimated
        self._width = 0
        self._starts: list[int] = [0]  # first line of each piece, as of the last layout
        self._filler: Timer | None = None
        self._fill_wait: Timer | None = None
        self._shift = 0  # lines the view is to move down once laid out
        self._open_end = False  # the last piece is the unfinished end of a streaming answer
        self._laid_out = False  # since the last change of the pieces
        if source:
            self.append(source)

    @property
    def source(self) -> str:
        return "".join(self.pieces)

    @property
    def rendered(self) -> int:
        """How many pieces are rendered at the current width."""
        return sum(1 for strips in self._strips if strips is not None)

    def append(self, stretch: str, end: str = "") -> None:
        """Add a finished stretch, then `end`: the unfinished text after it, shown as it is until
        the next call puts the rest of it in a stretch. Each is rendered when it is needed."""
        if self._open_end:
            self._drop_last()
        for piece in split_stretches(stretch, STRETCH_CHARS):
            self._add(piece)
        self._open_end = bool(end)
        if end:
            self._add(end)
        self._laid_out = False
        self.refresh(layout=True)
        self._start_filling()

    def _add(self, piece: str) -> None:
        self.pieces.append(piece)
        self._parsed.append(None)
        self._strips.append(None)
        # not laid out yet: the first layout estimates every piece at its width
        self._heights.append(self._estimate(len(self.pieces) - 1) if self._width else 1)

    def _drop_last(self) -> None:
        for pieces in (self.pieces, self._parsed, self._strips, self._heights):
            pieces.pop()

    async def action_link(self, href: str) -> None:
        self.post_message(self.LinkClicked(href))

    # layout and drawing

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        self._set_width(width)
        shown, seen = 0, self._view_height(viewport)
        for index in range(len(self.pieces) - 1, -1, -1):  # the end is what the view follows
            if shown >= seen:
                break
            shown += len(self._piece(index))
        self._starts = [0]
        for height in self._heights:
            self._starts.append(self._starts[-1] + height)
        self._laid_out = True
        return self._starts[-1]

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        index = bisect_right(self._starts, y) - 1
        if width != self._width or not 0 <= index < len(self.pieces):
            return Strip.blank(width)
        strips = self._strips[index]
        if strips is None:
            estimated = self._heights[index]
            strips = self._piece(index)
            if len(strips) != estimated:
                self.refresh(layout=True)  # this frame keeps the layout it was drawn with
        offset = y - self._starts[index]
        return strips[offset] if offset < len(strips) else Strip.blank(width)

    # rendering

    def _set_width(self, width: int) -> None:
        if width != self._width:
            self._width = width
            self._strips = [None] * len(self.pieces)
            self._heights = [self._estimate(index) for index in range(len(self.pieces))]
            self._start_filling()

    def _estimate(self, index: int) -> int:
        gap = 1 if index else 0  # the blank line Rich puts between blocks
        return gap + estimate_height(self.pieces[index], self._width)

    def _piece(self, index: int) -> list[Strip]:
        strips = self._strips[index]
        if strips is not None:
            return strips
        markdown = self._parsed[index]
        if markdown is None:
            markdown = _Markdown(self.pieces[index], hyperlinks=True, code_theme="monokai")
            self._parsed[index] = markdown
        console = self.app.console
        options = console.options.update_width(max(1, self._width))
        lines = console.render_lines(markdown, options, pad=False)
        strips = [Strip(_clickable(line)) for line in lines]
        if index:
            strips.insert(0, Strip.blank(self._width))
        self._strips[index] = strips
        self._heights[index] = len(strips)
        return strips

    def _start_filling(self) -> None:
        """Render the pieces off screen once appends pause: while an answer streams, only its
        end is drawn, and the stream keeps the event loop to itself."""
        if not self.is_attached:
            return
        if self._filler is not None:
            self._filler.stop()
            self._filler = None
        if self._fill_wait is not None:
            self._fill_wait.stop()
        self._fill_wait = self.set_timer(FILL_AFTER_S, self._begin_fill)

    def _begin_fill(self) -> None:
        self._fill_wait = None
        self._filler = self.set_interval(FILL_EVERY_S, self._fill)

    def _fill(self) -> None:
        """Render a slice of the pieces not yet rendered, nearest the end first."""
        if not self._width or not self._laid_out:
            return  # not laid out since the last append: the next tick will be
        deadline = time.perf_counter() + FILL_SLICE_S
        top = self._top_line()
        changed = above = 0
        for index in range(len(self.pieces) - 1, -1, -1):
            if self._strips[index] is None:
                delta = len(self._piece(index)) - (self._starts[index + 1] - self._starts[index])
                changed |= delta != 0
                above += delta if self._starts[index + 1] <= top else 0
                if time.perf_counter() >= deadline:
                    break
        else:
            if self._filler is not None:
                self._filler.stop()
                self._filler = None
        if changed:
            self.refresh(layout=True)
        if above:
            self._shift += above  # applied once the new heights are laid out (on_resize)

    def on_resize(self) -> None:
        """Pieces above the view changed height: move the view with them, so the text the user
        reads stays where it is while the rest settles."""
        shift, self._shift = self._shift, 0
        if shift and (view := self._view()) is not None:
            view.scroll_relative(y=shift, animate=False, immediate=True)

    def _view_height(self, viewport: Size) -> int:
        """How many lines the scrolling container shows, as of the last layout (the screen's,
        before the first). From its size, which a layout keeps: its region would be looked up
        in the screen's map, which is being rebuilt."""
        for ancestor in self.ancestors:
            if isinstance(ancestor, Widget) and ancestor.styles.overflow_y in ("auto", "scroll"):
                lines = ancestor.outer_size.height - ancestor.styles.gutter.height
                return lines if lines > 0 else viewport.height
        return viewport.height

    def _view(self) -> Widget | None:
        """The scrolling container, when the user has scrolled it away from the end."""
        for ancestor in self.ancestors:
            if isinstance(ancestor, Widget) and ancestor.allow_vertical_scroll:
                return ancestor if ancestor.scroll_y < ancestor.max_scroll_y else None
        return None

    def _top_line(self) -> int:
        """The first of this widget's lines in view (0 when its top is in view)."""
        view = self._view()
        return max(0, view.region.y - self.region.y) if view is not None else 0

    def on_mount(self) -> None:
        self._start_filling()


__all__ = ["FrozenMarkdown", "estimate_height"]
