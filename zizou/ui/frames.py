"""Frames held from the sending of a message, so that a quick answer is drawn with it at once.

Textual draws at most one frame per 1/60 s: the screen runs a timer when it has work, and a frame
drawn puts the next one at least a tick later. From the moment a message is sent until its turn
ends, or HOLD_S has passed, no frame is drawn. A quick answer (a model faster than the screen)
then shows with the user's message in one frame, drawn as the turn ends, instead of after a frame
of the message alone: that frame's layout would share the interpreter with the turn, and the
answer would wait for the timer's next tick. A slower turn shows the message HOLD_S after it was
sent.
"""

from __future__ import annotations

from contextlib import ExitStack

from textual.timer import Timer
from textual.widget import Widget


class TurnFrames:
    """The frames of `view`'s app, held from a message's sending until its turn ends
    (`release`) or HOLD_S passes."""

    HOLD_S = 0.05  # three frames: less than a person notices

    def __init__(self, view: Widget) -> None:
        self.view = view
        self._held: ExitStack | None = None
        self._deadline: Timer | None = None

    @property
    def held(self) -> bool:
        return self._held is not None

    def hold(self) -> None:
        if self._held is not None:
            return
        app = self.view.app
        held = ExitStack()
        held.enter_context(app.batch_update())
        self._held = held
        self._deadline = app.set_timer(self.HOLD_S, self.release, name="turn frames")

    def release(self) -> None:
        held, self._held = self._held, None
        if held is None:
            return
        if self._deadline is not None:
            self._deadline.stop()
            self._deadline = None
        held.close()  # the screen draws what waits as soon as its timer allows


__all__ = ["TurnFrames"]
