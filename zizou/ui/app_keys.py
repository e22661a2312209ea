"""The app's keys: the bindings, and what Tab, Shift+Tab, Esc, Ctrl+C, Ctrl+B and Ctrl+O do.

`ZizouApp` builds what these act on (the controllers and widgets declared below); this base
class only holds the key handling, so the app itself stays about composing and routing.

- Every key first tells the typing clock (streamed text waits for a pause; a dialog that opens
  by itself takes no key typed on, see `screens.guarded`), and text typed while the focus is
  elsewhere is claimed by the prompt (`FocusRouter.claim`).
- Tab and Shift+Tab walk the main screen's focus ring (`FocusRouter`); Shift+Tab in the prompt
  switches the mode instead (build, plan).
- Esc brings the focus home, then cancels the edit of a queued message, then interrupts.
- Ctrl+C interrupts; twice within `QUIT_WINDOW_S` quits.
- SIGTERM and SIGHUP (the terminal closed) quit the same way, with the shell's exit code for the
  signal: the turn stops, every job and server process ends, the terminal is put back.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.events import Event, Key, Paste, Resize
from textual.worker import Worker

from zizou.ui.focus import FocusRouter
from zizou.ui.modes import ModeController
from zizou.ui.router import InputRouter
from zizou.ui.turns import TurnController
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.mascot import Mascot
from zizou.ui.widgets.messages import TypingClock
from zizou.ui.widgets.sidebar import Sidebar

QUIT_WINDOW_S = 2.0
STOPPABLE = ("turn", "shell")  # the worker groups Esc and Ctrl+C stop


class KeyedApp(App[int]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False),
        Binding("ctrl+o", "toggle_output", "Output", show=False),
    ]

    # Built by the app.
    typing: TypingClock
    chat: ChatView
    composer: Composer
    sidebar: Sidebar
    turns: TurnController
    modes: ModeController
    router: InputRouter
    focus_router: FocusRouter
    _last_ctrl_c = 0.0

    async def on_event(self, event: Event) -> None:
        if isinstance(event, Key):
            self.typing.pressed()
        if isinstance(event, Key | Paste) and not event.is_forwarded:
            self.focus_router.claim(event)  # text typed while focus is elsewhere: the prompt's
        await super().on_event(event)

    def action_focus_next(self) -> None:
        if not self.focus_router.move(forward=True):
            super().action_focus_next()

    def action_focus_previous(self) -> None:
        """Shift+Tab: in the prompt, the next mode (see `FocusRouter`); elsewhere focus back."""
        if self.focus_router.at_home:
            self.run_worker(self.router.when_ready(self.modes.cycle()), group="mode")
        elif not self.focus_router.move(forward=False):
            super().action_focus_previous()

    async def action_interrupt(self) -> None:
        if not self.focus_router.home() and not await self.turns.cancel_edit():
            self.interrupt()

    def action_toggle_output(self) -> None:
        self.chat.toggle_outputs()

    def interrupt(self) -> list[Worker[object]]:
        """Stop the running turn and `!commands`; the workers that were running."""
        running = [w for w in self.workers if w.group in STOPPABLE and not w.is_finished]
        for worker in running:
            worker.cancel()
        return running

    async def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        self.interrupt()
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_S)

    async def action_quit(self) -> None:
        await self.leave(0)

    async def leave(self, code: int) -> None:
        """Stop what runs (killing command process groups) before leaving with `code`."""
        if running := self.interrupt():
            await asyncio.wait([asyncio.ensure_future(w.wait()) for w in running], timeout=5)
        self.exit(code)

    def catch_signals(self) -> None:
        """Quit on SIGTERM and SIGHUP as on Ctrl+C Ctrl+C, rather than die with processes left
        running and the terminal left in the app's modes."""
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGHUP):
            loop.add_signal_handler(signum, self._signalled, signum)

    def _signalled(self, signum: int) -> None:
        self.run_worker(self.leave(128 + signum), group="leave", exclusive=True)

    def action_toggle_sidebar(self) -> None:
        self.sidebar.toggle(self.size.width)
        self._sidebar_fitted()

    def _sidebar_fitted(self) -> None:
        if not self.sidebar.display and self.sidebar.has_focus_within:
            self.composer.focus_prompt()  # the plan it was in is gone

    def on_resize(self, event: Resize) -> None:
        self.sidebar.fit(self.size.width)
        self._sidebar_fitted()
        for mascot in self.query(Mascot):
            mascot.refresh_form()


__all__ = ["QUIT_WINDOW_S", "STOPPABLE", "KeyedApp"]
