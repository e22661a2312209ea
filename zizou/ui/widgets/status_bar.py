"""The bottom line: the session's mode, what zizou is doing now, how full the model's context
is, the spend against a spending cap (when there is one), and the keys that matter."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from zizou.ui.window_text import context_use

HINTS = ("esc interrupt", "⇧tab mode", "^p commands", "^b sidebar", "^c^c quit")
IDLE_HINTS = ("/help", "⇧tab mode", "^p commands", "^b sidebar", "^c^c quit")
SPARE = ("^b sidebar", "^p commands")  # left out, in this order, where the line is short
FILLING = 0.7  # of the context window: the share turns yellow
FULL = 0.9  # and red, when a request is near the model's limit
SPEND_WARN = 0.8  # of a spending cap: the spend turns yellow (and red at the cap)
# The mode badge: build is the usual mode and stays quiet; plan (read-only) stands out.
MODE_STYLES = {"build": "bold", "plan": "bold black on yellow"}
# The permission mode, beside BUILD when it is not the usual accept-edits.
PERMISSION_STYLES = {"auto": "bold black on cyan", "ask": "bold"}


class StatusBar(Static):
    mode: reactive[str] = reactive("build")  # the session's: "build" or "plan"
    permission: reactive[str] = reactive("accept-edits")  # ask, accept-edits or auto
    state: reactive[str] = reactive("ready")
    busy: reactive[bool] = reactive(False)
    warning: reactive[str] = reactive("")  # a standing caveat, e.g. "no sandbox"
    # The last request's input tokens and the model's context window (None: unknown).
    context: reactive[tuple[int, int | None]] = reactive((0, None))
    # The spend against the cap ("$0.42/$2.00") and the share of the cap used; "" without one.
    spend: reactive[tuple[str, float]] = reactive(("", 0.0))

    def render(self) -> Text:
        text = Text()
        text.append_text(mode_badge(self.mode))
        if self.mode != "plan" and self.permission in PERMISSION_STYLES:
            text.append(" ")
            text.append(f" {self.permission.upper()} ", style=PERMISSION_STYLES[self.permission])
        text.append(" ")
        text.append("● " if self.busy else "○ ", style="yellow" if self.busy else "green")
        text.append(self.state)
        used, window = self.context
        if shown := context_use(used, window):
            text.append(" · ", style="dim")
            text.append(shown, style=_level_style(used / window if window else 0.0))
        spent, level = self.spend
        if spent:
            text.append(" · ", style="dim")
            style = "bold red" if level >= 1 else "yellow" if level >= SPEND_WARN else ""
            text.append(spent, style=style)
        if self.warning:
            text.append(" · ", style="dim")
            text.append(self.warning, style="bold yellow")
        room = self.size.width - len(text) - 2
        if room > 10:
            hint = hints_for(HINTS if self.busy else IDLE_HINTS, room)
            text.append(" " * max(2, room - len(hint) + 2))
            text.append(hint, style="dim")
        return text


def hints_for(hints: tuple[str, ...], room: int) -> str:
    """The key hints that fit in `room` columns: the spare ones left out first, then cut."""
    line = " · ".join(hints)
    for spare in SPARE:
        if len(line) <= room:
            break
        hints = tuple(hint for hint in hints if hint != spare)
        line = " · ".join(hints)
    return line if len(line) <= room else line[: room - 1] + "…"


def mode_badge(mode: str) -> Text:
    """The mode in capitals, set apart: " PLAN " highlighted, " BUILD " plain."""
    text = Text()
    text.append(f" {mode.upper()} ", style=MODE_STYLES.get(mode, "bold reverse"))
    return text


def _level_style(level: float) -> str:
    if level >= FULL:
        return "bold red"
    return "yellow" if level >= FILLING else ""


__all__ = ["StatusBar", "mode_badge"]
