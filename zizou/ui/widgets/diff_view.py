"""A unified diff with added lines green and removed lines red, never read as markup."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from zizou.plural import counted
from zizou.ui.text import clean

DEFAULT_LINES = 24


def diff_text(diff: str, limit: int | None = DEFAULT_LINES) -> Text:
    """`diff` coloured line by line; past `limit` lines, a note of how many are hidden."""
    lines = clean(diff).rstrip("\n").split("\n")
    shown = lines if limit is None else lines[:limit]
    text = Text()
    for number, line in enumerate(shown):
        if number:
            text.append("\n")
        text.append(line, style=_style(line))
    hidden = len(lines) - len(shown)
    if hidden > 0:
        text.append(
            f"\n… {counted(hidden, 'more line')} (select the row to see them all)", style="dim"
        )
    return text


def _style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("@@"):
        return "cyan"
    return ""


class DiffView(Static):
    def __init__(self, diff: str, limit: int | None = DEFAULT_LINES) -> None:
        super().__init__(diff_text(diff, limit))
        self.diff = diff

    def show_all(self, full: bool) -> None:
        self.update(diff_text(self.diff, None if full else DEFAULT_LINES))


__all__ = ["DiffView", "diff_text"]
