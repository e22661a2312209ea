"""Opening the session once the first frame is up, and warming up what the first request needs.

The first frame needs only Textual and the app's own widgets. The runtime (tools, prompt, repo
map, session file) and the model (whose key may come from the OS keyring, which can take a
while) are built in a thread right after it; meanwhile messages typed are queued and commands
wait. litellm is imported in another thread a moment later.

The collector: Python's full collections scanned litellm's hundreds of thousands of objects and
froze the screen for 100-250 ms at a time while an answer streamed. So what start-up and the
preload load is frozen (`gc.freeze()`: never scanned again), the thresholds make collections
rarer, and after each turn the garbage is collected while the screen is idle and what survives
is frozen too. Dropping a conversation (/clear, /sessions) unfreezes everything once, so its
widgets and messages are freed.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.worker import Worker

if TYPE_CHECKING:
    from zizou.ui.app import ZizouApp
    from zizou.ui.session import UiSession

PRELOAD_DELAY_S = 0.3  # after the first frame, so the first keystrokes come first
GC_THRESHOLDS = (10_000, 50, 100)  # Python's defaults are (700, 10, 10)


@dataclass(frozen=True)
class Warmup:
    """What the real app does once it is on screen: `preload` (litellm) in a thread, and the
    collector tuned as described above. Tests run without it."""

    preload: Callable[[], None]
    tune_gc: bool = True


def keep_survivors() -> None:
    """After a turn: collect its garbage now, then never scan what survives again."""
    gc.collect()
    gc.freeze()


def reclaim_all() -> None:
    """After a conversation is dropped: collect everything, the frozen objects included."""
    gc.unfreeze()
    keep_survivors()


@dataclass(frozen=True)
class PendingSession:
    """A session to build off the UI thread: `open()` may raise a ZizouError (a bad `-r`)."""

    root: Path
    open: Callable[[], UiSession]


class Opening:
    def __init__(
        self,
        app: ZizouApp,
        source: UiSession | PendingSession,
        warmup: Warmup | None,
    ) -> None:
        self.app = app
        self.pending = source if isinstance(source, PendingSession) else None
        self.session = None if isinstance(source, PendingSession) else source
        self.root = source.root
        self.preload = warmup.preload if warmup else None
        self.tune_gc = warmup.tune_gc if warmup else False
        self.preload_worker: Worker[None] | None = None
        self.error: Exception | None = None  # why the session could not be opened
        self._ready = asyncio.Event()

    @property
    def ready(self) -> bool:
        return self.session is not None

    async def wait(self) -> UiSession:
        if self.session is None:
            await self._ready.wait()
        assert self.session is not None
        return self.session

    def start(self) -> None:
        """The first frame is on screen: open the session and, a moment later, load litellm."""
        if self.tune_gc:
            gc.set_threshold(*GC_THRESHOLDS)
            gc.freeze()  # what start-up loaded stays: never scan it again
        if self.session is None:
            self.app.run_worker(self._open, thread=True, group="open", exit_on_error=False)
        else:
            self._ready.set()
        if self.preload is not None:
            self.app.set_timer(PRELOAD_DELAY_S, self.start_preload)

    def _open(self) -> None:
        assert self.pending is not None
        try:
            session = self.pending.open()
        except Exception as exc:  # shown by the command line after the app closes
            self.app.call_from_thread(self._failed, exc)
            return
        if self.tune_gc:
            gc.freeze()
        self.app.call_from_thread(self._opened, session)

    def _opened(self, session: UiSession) -> None:
        self.session = session
        self._ready.set()
        self.app.call_later(self.present)

    async def present(self) -> None:
        """Show what the session brings (a resumed history, warnings), open the key wizard if
        the model has no key (or for --setup / --reset), and send what was typed meanwhile."""
        app, session = self.app, await self.wait()
        app.refresh_sidebar()
        runtime = session.runtime
        if runtime.agent.conversation.messages:
            from zizou.ui.resumed import show_resumed

            await show_resumed(app.chat, session)
            await app.chat.add_notice(f"Resumed session {runtime.session_id}.")
        for warning in runtime.warnings:
            await app.chat.add_notice(warning, "warning")
        app.show_sandbox(runtime.sandbox_status)
        keys = app.slash.model_actions
        if session.model_problem:
            wizard = session.model_problem_kind in ("missing_key", "usage")
            await keys.key_problem(session.model_problem, wizard=wizard)
        elif app.setup is not None:
            keys.open_setup(reset=app.setup == "reset")
        app.run_worker(self._render_prompt, thread=True, group="prompt", exit_on_error=False)
        app.set_status("ready")
        await app.after_queue_change()

    def _render_prompt(self) -> None:
        assert self.session is not None
        self.session.runtime.prompt.render()
        self.app.call_from_thread(self.app.refresh_sidebar)

    def _failed(self, exc: Exception) -> None:
        self.error = exc
        self.app.exit(1, return_code=getattr(exc, "exit_code", 1))

    def start_preload(self) -> None:
        if self.preload is not None and self.preload_worker is None:
            self.preload_worker = self.app.run_worker(
                self._preload, thread=True, group="preload", exit_on_error=False
            )

    def _preload(self) -> None:
        assert self.preload is not None
        self.preload()
        if self.tune_gc:
            gc.freeze()

    def turn_ended(self) -> None:
        if self.tune_gc:
            self.app.call_after_refresh(keep_survivors)

    def conversation_dropped(self) -> None:
        if self.tune_gc:
            self.app.call_after_refresh(reclaim_all)

    async def wait_for_preload(self) -> None:
        """Before the first request: litellm must be loaded (it is, unless the user is quick)."""
        self.start_preload()
        if self.preload_worker is not None and not self.preload_worker.is_finished:
            self.app.set_status("loading the model library…")
            await self.preload_worker.wait()


__all__ = [
    "GC_THRESHOLDS",
    "PRELOAD_DELAY_S",
    "Opening",
    "PendingSession",
    "Warmup",
    "keep_survivors",
    "reclaim_all",
]
