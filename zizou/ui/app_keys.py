"""The app's keys: the bindings, and what Tab, Shift+Tab, Esc, Ctrl+C, Ctrl+B and Ctrl+O do.

`ZizouApp` builds what these act on (the controllers and widgets declared below); this base
class only holds the key handling, so the app itself stays about composing and routing.

- Every key first tells the typing clock (streamed text waits for a pause; a dialog that opens
  by itself takes no key typed on, see `screens.guarded`), and text typed while the focus is
  elsewhere is claimed by the prompt (`FocusRouter.claim`).
- Tab and Shift+Tab walk the main screen's focus ring (`FocusRouter`); Shift+Tab in the prompt
  switches the mode instead (build, plan).
- Esc brings the focus home, then cancels the edit of a queued message, then interrupts; at an
  idle, empty prompt, Esc twice opens /rewind.
- Ctrl+C interrupts; twice within `QUIT_WINDOW_S` quits.
- SIGTERM quits the same way, SIGHUP (the terminal closed) at once, each with the shell's exit
  code for the signal: every job and server process ends first.
"""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from typing import TYPE_CHECKING, ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.events import Event, Key, Paste, Resize
from textual.worker import Worker

from zizou.ui.widgets.mascot import Mascot

if TYPE_CHECKING:
    from zizou.ui.focus import FocusRouter
    from zizou.ui.modes import ModeController
    from zizou.ui.router import InputRouter
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.composer import Composer
    from zizou.ui.widgets.messages import TypingClock
    from zizou.ui.widgets.sidebar import Sidebar

QUIT_WINDOW_S = 2.0
REWIND_WINDOW_S = 0.8  # Esc twice within this, at an idle prompt: /rewind
LEAVE_LIMIT_S = 10.0  # how long SIGTERM waits for the app to quit before ending it at once
STOPPABLE = ("turn", "shell")  # the worker groups Esc and Ctrl+C stop


class KeyedApp(App[int]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False),
        Binding("ctrl+o", "toggle_output", "Output", show=False),
    ]

    # Built by the app (the controllers once the first frame is up, see `zizou.ui.app`).
    typing: TypingClock
    chat: ChatView
    composer: Composer
    sidebar: Sidebar
    focus_router: FocusRouter

    @property
    def turns(self) -> TurnController:
        raise NotImplementedError

    @property
    def modes(self) -> ModeController:
        raise NotImplementedError

    @property
    def router(self) -> InputRouter:
        raise NotImplementedError

    _last_ctrl_c = 0.0
    _last_escape = 0.0
    _leaving = False  # a SIGTERM came: the app is quitting

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
        """Esc: focus back to the prompt, else stop a queued edit, else the running turn; at an
        idle, empty prompt, a second Esc soon after the first opens /rewind."""
        busy = self.focus_router.home() or await self.turns.cancel_edit() or self.interrupt()
        now, before = time.monotonic(), self._last_escape
        self._last_escape = 0.0 if busy or self.composer.text.strip() else now
        if self._last_escape and now - before < REWIND_WINDOW_S:
            self._last_escape = 0.0
            await self.router.submit("/rewind")

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
        """SIGTERM quits as Ctrl+C Ctrl+C does (and at once if that takes past `LEAVE_LIMIT_S`
        or a second one comes); SIGHUP, the terminal gone, ends zizou at once: nothing can be
        drawn or put back, and Textual's own shutdown may wait forever on the dead terminal.
        Either way no job or server process is left running."""
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, self._terminated)
        loop.add_signal_handler(signal.SIGHUP, self.end_now, 128 + signal.SIGHUP)

    def _terminated(self) -> None:
        code = 128 + signal.SIGTERM
        if self._leaving:
            self.end_now(code)
        self._leaving = True
        limit = threading.Timer(LEAVE_LIMIT_S, self.end_now, (code,))
        limit.daemon = True
        limit.start()
        self.run_worker(self.leave(code), group="leave", exclusive=True)

    def end_now(self, code: int) -> None:
        """End the process now: the session's processes and files closed first."""
        try:
            self.release()
        finally:
            os._exit(code)

    def release(self) -> None:
        """Close what the session holds (its jobs, servers and files); the app says how."""

    def action_toggle_sidebar(self) -> None:
        self.sidebar.toggle(self.size.width)
        self._sidebar_fitted()
        # The chat's width changes once the layout is redone: the mascot's form follows then
        # (its own Resize is not always sent for a width taken by a sibling).
        self.call_after_refresh(self._fit_mascots)

    def _sidebar_fitted(self) -> None:
        if not self.sidebar.display and self.sidebar.has_focus_within:
            self.composer.focus_prompt()  # the plan it was in is gone

    def on_resize(self, event: Resize) -> None:
        self.sidebar.fit(event.size.width)  # runs before App's own handler updates `self.size`
        self._sidebar_fitted()
        self._fit_mascots()

    def _fit_mascots(self) -> None:
        for mascot in self.query(Mascot):
            mascot.refresh_form()


__all__ = ["QUIT_WINDOW_S", "STOPPABLE", "KeyedApp"]
