"""The bottom line: what zizou is doing now, how full the model's context is, and the keys that
matter."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from zizou.ui.window_text import context_use

HINTS = "esc interrupt · ^p commands · ^b sidebar · ^c^c quit"
IDLE_HINTS = "/help · ^p commands · ^b sidebar · ^c^c quit"
FILLING = 0.7  # of the context window: the share turns yellow
FULL = 0.9  # and red, when a request is near the model's limit


class StatusBar(Static):
    state: reactive[str] = reactive("ready")
    busy: reactive[bool] = reactive(False)
    warning: reactive[str] = reactive("")  # a standing caveat, e.g. "no sandbox"
    # The last request's input tokens and the model's context window (None: unknown).
    context: reactive[tuple[int, int | None]] = reactive((0, None))

    def render(self) -> Text:
        text = Text()
        text.append("● " if self.busy else "○ ", style="yellow" if self.busy else "green")
        text.append(self.state)
        used, window = self.context
        if shown := context_use(used, window):
            text.append(" · ", style="dim")
            text.append(shown, style=_level_style(used / window if window else 0.0))
        if self.warning:
            text.append(" · ", style="dim")
            text.append(self.warning, style="bold yellow")
        hints = HINTS if self.busy else IDLE_HINTS
        room = self.size.width - len(text) - 2
        if room > 10:
            hint = hints if len(hints) <= room else hints[: room - 1] + "…"
            text.append(" " * max(2, room - len(hint) + 2))
            text.append(hint, style="dim")
        return text


def _level_style(level: float) -> str:
    if level >= FULL:
        return "bold red"
    return "yellow" if level >= FILLING else ""


__all__ = ["StatusBar"]
