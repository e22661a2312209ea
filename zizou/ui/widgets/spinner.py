"""A one-line spinner with what is being waited for: `⠹ checking the key with OpenAI…`.

It only animates while shown, so an idle spinner costs nothing.
"""

from __future__ import annotations

from rich.text import Text
from textual.timer import Timer
from textual.widgets import Static

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
FRAME_S = 0.08


class Spinner(Static):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.message = ""
        self.frame = 0
        self._timer: Timer | None = None
        self.display = False

    @property
    def spinning(self) -> bool:
        return self._timer is not None

    def start(self, message: str) -> None:
        self.message = message
        self.frame = 0
        self.display = True
        self._draw()
        if self._timer is None:
            self._timer = self.set_interval(FRAME_S, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.display = False

    def _tick(self) -> None:
        self.frame = (self.frame + 1) % len(FRAMES)
        self._draw()

    def _draw(self) -> None:
        line = Text(f"{FRAMES[self.frame]} ", style="bold")
        line.append(self.message)
        self.update(line)


__all__ = ["Spinner"]
