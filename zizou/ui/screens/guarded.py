"""A question that opens by itself (at start-up, at the end of a turn), not in answer to a key.

The user may be typing when it opens, and a `y` meant for the prompt must not answer it. So the
dialog takes keys only once it is armed: it has been on screen `ARM_S`, and the user paused
`PAUSE_S` since the key before. Until then what is typed goes on to the prompt behind it
(posted as `TypedAhead`, which the app replays there): nothing typed is lost, or taken for an
answer. A key that answers nothing goes there too, and the user typing again disarms it. Esc,
which types nothing, answers at once; keys that type nothing (arrows, Page Up) keep their use
in the dialog, such as scrolling.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from textual.events import Key
from textual.message import Message
from textual.screen import ModalScreen, Screen

from zizou.ui.widgets.messages import TypingClock

T = TypeVar("T")
TYPING_KEYS = frozenset({"enter", "backspace", "ctrl+j"})  # besides the printable ones


class TypedAhead(Message):
    """A key typed for the prompt while a dialog opened over it: the app replays it there."""

    def __init__(self, key: str, character: str | None) -> None:
        super().__init__()
        self.key = key
        self.character = character


def pass_typing_on(screen: Screen[Any], event: Key, answers: frozenset[str]) -> None:
    """For a dialog opened by a command: a key typed that answers nothing in it goes on to the
    prompt behind (the dialog stays), so it is not lost."""
    if event.key in answers or not (event.is_printable or event.key == "backspace"):
        return
    event.stop()
    event.prevent_default()
    screen.app.post_message(TypedAhead(event.key, event.character))


class GuardedScreen(ModalScreen[T]):
    """A modal dialog whose answers are keys (`answer`), safe from keys typed ahead."""

    ARM_S: ClassVar[float] = 0.6  # on screen this long before a key can answer
    PAUSE_S: ClassVar[float] = 0.6  # and this long since the key before

    def __init__(self, typing: TypingClock | None = None) -> None:
        super().__init__()
        self.typing = typing or TypingClock()
        self.shown_at = self.typing.now()
        self.armed = False

    FITTED: ClassVar[str] = ""  # the scrolling part, which gives up rows on a short screen
    OTHER_ROWS: ClassVar[int] = 0  # the rows the rest of the dialog takes

    def on_mount(self) -> None:
        shared = getattr(self.app, "typing", None)  # the app's clock, when none was given
        if isinstance(shared, TypingClock):
            self.typing = shared
        self.shown_at = self.typing.now()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The scrolling part gets the rows the rest leaves, so the keys always show."""
        if self.FITTED:
            room = int(self.size.height * 0.9) - self.OTHER_ROWS
            self.query_one(self.FITTED).styles.max_height = max(3, min(20, room))

    def answer(self, key: str) -> bool:
        """Act on an answer key; False when `key` answers nothing here."""
        raise NotImplementedError

    def yes_or_no(self, key: str) -> bool:
        """The usual answer: `y` is True, `n` or Esc False (for `answer` to call)."""
        if key not in ("y", "n", "escape"):
            return False
        self.dismiss(key == "y")  # type: ignore[arg-type]  # used by the yes-or-no screens
        return True

    def typed_ahead(self, key: str) -> None:
        """A key typed for the prompt went there (the dialog may close on Enter)."""

    def on_key(self, event: Key) -> None:
        now = self.typing.now()
        before = self.typing.key_before_at  # the app's clock has this key already: the one before
        if not self.armed:
            paused = before is None or now - before >= self.PAUSE_S
            self.armed = now - self.shown_at >= self.ARM_S and paused
        if (self.armed or event.key == "escape") and self.answer(event.key):
            event.stop()
            event.prevent_default()
        elif event.is_printable or event.key in TYPING_KEYS:
            event.stop()
            event.prevent_default()
            self.armed = False  # the user is typing: the next answer waits for a pause
            self.post_message(TypedAhead(event.key, event.character))
            self.typed_ahead(event.key)


__all__ = ["GuardedScreen", "TypedAhead", "pass_typing_on"]
