"""Finished stretches of a long answer, rendered once as a single widget.

Textual's Markdown builds a widget per block, which is what lets it stream; but a 100 KB
answer becomes thousands of widgets and every layout walks them all. So once a stretch of an
answer is complete (it ends at a paragraph break outside a code fence), it is handed to Rich's
Markdown and shown as one Static. Rich reads no console markup in it, and links are shown with
their full address instead of being clickable. It is rendered once per width and kept.
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
    """Rendered once per width and kept as strips, so layouts never render it again."""

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source
        self._markdown = _Markdown(source, hyperlinks=False, code_theme="monokai")
        self._strips: tuple[int, list[Strip]] | None = None

    def _lines(self, width: int) -> list[Strip]:
        if self._strips is None or self._strips[0] != width:
            console = self.app.console
            options = console.options.update_width(max(1, width))
            lines = console.render_lines(self._markdown, options, pad=False)
            self._strips = (width, [Strip(line) for line in lines])
        return self._strips[1]

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_region.width
        lines = self._lines(width)
        return lines[y] if y < len(lines) else Strip.blank(width)


__all__ = ["FrozenMarkdown"]
