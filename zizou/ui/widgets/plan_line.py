"""The plan in the conversation: one compact line per turn, `▸ plan: ☑ … · ◐ … · ☐ …`, kept
current while the turn runs (the turn's renderer updates it, and moves it to the end, after
each step that changed the state) and fitted to the width it has."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text
from textual.widget import Widget

from zizou.contracts.task_state import PLAN_MARKS, plan_line
from zizou.ui.text import clean
from zizou.ui.widgets.plan_checklist import MARK_STYLES

FALLBACK_WIDTH = 120  # before the first layout
_MARK_STYLE = {PLAN_MARKS[status]: style for status, style in MARK_STYLES.items()}


class PlanLine(Widget):
    def __init__(self, value: Mapping[str, Any]) -> None:
        super().__init__()
        self.value = value

    def show(self, value: Mapping[str, Any]) -> None:
        self.value = value
        self.refresh(layout=True)

    @property
    def text(self) -> str:
        return plan_line(self.value, self.content_size.width or FALLBACK_WIDTH) or ""

    def render(self) -> Text:
        return plan_text(self.text)


def plan_text(line: str) -> Text:
    """The line with its head dim and each mark in its status's colour."""
    text = Text(clean(line))
    text.stylize("dim", 0, len("▸ plan:"))
    for at, char in enumerate(text.plain):
        if char in _MARK_STYLE:
            text.stylize(_MARK_STYLE[char], at, at + 1)
    return text


__all__ = ["PlanLine", "plan_text"]
