"""The finished part of a long answer, rendered once per stretch and kept as one widget.

Textual's Markdown builds a widget per block, which is what lets it stream; but a 100 KB
answer becomes thousands of widgets and every layout walks them all. So once a stretch of an
answer is complete (it ends at a paragraph break outside a code fence), it is appended here:
Rich renders that stretch alone, once per width, and the widget shows the stretches one after
another. An answer has one of these however long it grows, so a layout costs the same at the
end of a long answer as at its start. Rich reads no console markup in it, and links are shown
with their full address instead of being clickable.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Heading, Markdown, MarkdownElement
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


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


class FrozenMarkdown(Widget):
    """Finished stretches of Markdown, each rendered once per width and kept as strips."""

    def __init__(self, source: str = "") -> None:
        super().__init__()
        self.stretches: list[str] = []
        self._parsed: list[_Markdown] = []  # parsed once, rendered once per width
        self._width = 0
        self._rendered: list[list[Strip]] = []  # per stretch, at `_width`
        self._lines: list[Strip] = []
        if source:
            self.append(source)

    @property
    def source(self) -> str:
        return "".join(self.stretches)

    def append(self, stretch: str) -> None:
        """Add a finished stretch; only it is rendered, at the next layout."""
        self.stretches.append(stretch)
        self._parsed.append(_Markdown(stretch, hyperlinks=False, code_theme="monokai"))
        self.refresh(layout=True)

    def _render_stretch(self, markdown: _Markdown, width: int) -> list[Strip]:
        console = self.app.console
        options = console.options.update_width(max(1, width))
        return [Strip(line) for line in console.render_lines(markdown, options, pad=False)]

    def lines(self, width: int) -> list[Strip]:
        if width != self._width:
            self._width, self._rendered, self._lines = width, [], []
        for markdown in self._parsed[len(self._rendered) :]:
            if self._rendered:
                self._lines.append(Strip.blank(width))  # the gap Rich puts between blocks
            strips = self._render_stretch(markdown, width)
            self._rendered.append(strips)
            self._lines.extend(strips)
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        lines = self.lines(width)
        return lines[y] if y < len(lines) else Strip.blank(width)


__all__ = ["FrozenMarkdown"]
