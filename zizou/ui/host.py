"""What the app's controllers get from it, and what they ask of it.

The controllers (turns, slash commands, model and session switching, `!commands`) are plain
objects: they are handed the widgets they draw on and a `Host`, which only runs work in
workers, calls something after the next refresh, and takes messages. What only the app can do
(show a screen, quit, redraw the sidebar) they ask for with the messages below, as widgets do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from textual.message import Message
from textual.screen import Screen, ScreenResultCallbackType
from textual.worker import Worker, WorkType

from zizou.ui.widgets.messages import NoticeKind

T = TypeVar("T")


class Host(Protocol):
    """The app, as its controllers see it (these are Textual's own methods)."""

    def run_worker(
        self,
        work: WorkType[T],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[T]: ...

    def call_after_refresh(
        self, callback: Callable[..., Any], *args: Any, **kwargs: Any
    ) -> bool: ...

    def post_message(self, message: Message) -> bool: ...


class Notices(Protocol):
    """Where a controller says what happened (the conversation)."""

    async def add_notice(
        self,
        message: str,
        kind: NoticeKind = "info",
        fix: str | None = None,
        rows: Sequence[tuple[str, str]] = (),
    ) -> object: ...


class ShowScreen(Message):
    """Show `screen`; `callback` gets what it is dismissed with."""

    def __init__(
        self, screen: Screen[Any], callback: ScreenResultCallbackType[Any] | None = None
    ) -> None:
        super().__init__()
        self.screen = screen
        self.callback = callback


class QuitRequested(Message):
    """Stop what runs and leave."""


class SessionChanged(Message):
    """The session's model, totals, windows or prompt changed: the sidebar and the status line
    show them afresh."""


__all__ = ["Host", "Notices", "QuitRequested", "SessionChanged", "ShowScreen"]
