"""The plan gate: a turn in plan mode ended with a plan. It lists the plan and asks whether to
switch to build mode and carry it out: `y` yes, `n` or Esc keeps planning.

It opens by itself when the turn ends, so it is a `GuardedScreen`: keys typed ahead go to the
prompt, and Enter typed there sends the message and closes the gate unanswered (the user said
something else; the gate comes back after the turn that follows, if there is still a plan).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from zizou.ui.screens.guarded import GuardedScreen
from zizou.ui.text import clean

if TYPE_CHECKING:
    from zizou.ui.widgets.messages import TypingClock

QUESTION = "Switch to build and carry it out?"


class PlanGateScreen(GuardedScreen[bool | None]):
    AUTO_FOCUS = "#gate-plan"
    FITTED = "#gate-plan"
    OTHER_ROWS = 12

    def __init__(self, plan: str, typing: TypingClock | None = None) -> None:
        super().__init__(typing)
        self.plan = plan

    def compose(self) -> ComposeResult:
        with Vertical(id="gate-dialog"):
            yield Label(Text("The plan", style="bold"), id="gate-title")
            with VerticalScroll(id="gate-plan"):
                yield Static(Text(clean(self.plan)))
            yield Label(Text(QUESTION, style="bold"), id="gate-question")
            keys = Text()
            keys.append(" y ", style="bold reverse")
            keys.append(" yes: build mode, and go ahead   ")
            keys.append(" n ", style="bold reverse")
            keys.append(" no: keep planning (Esc)")
            yield Static(keys, id="gate-keys")

    def answer(self, key: str) -> bool:
        return self.yes_or_no(key)

    def typed_ahead(self, key: str) -> None:
        if key == "enter":  # a message was sent instead of an answer
            self.dismiss(None)


__all__ = ["QUESTION", "PlanGateScreen"]
