"""The bottom line: what zizou is doing now, and the keys that matter."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

HINTS = "esc interrupt · ^p commands · ^b sidebar · ^c^c quit"
IDLE_HINTS = "/help · ^p commands · ^b sidebar · ^c^c quit"


class StatusBar(Static):
    state: reactive[str] = reactive("ready")
    busy: reactive[bool] = reactive(False)
    warning: reactive[str] = reactive("")  # a standing caveat, e.g. "no sandbox"

    def render(self) -> Text:
        text = Text()
        text.append("● " if self.busy else "○ ", style="yellow" if self.busy else "green")
        text.append(self.state)
        if self.warning:
            text.append(" · ", style="dim")
            text.append(self.warning, style="bold yellow")
        hints = HINTS if self.busy else IDLE_HINTS
        room = self.size.width - len(text) - 2
        if room > 10:
            shown = hints if len(hints) <= room else hints[: room - 1] + "…"
            text.append(" " * max(2, room - len(shown) + 2))
            text.append(shown, style="dim")
        return text


__all__ = ["StatusBar"]
