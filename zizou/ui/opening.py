"""Opening the session once the first frame is up, and warming up what the first request needs.

The first frame needs only Textual and the app's own widgets. The session kernel (tools, prompt,
repo map, session file) and the model (whose key may come from the OS keyring, which can take a
while) are built in a thread right after it, which posts `Opening.Opened` (or `Opening.Failed`)
to the app. The session is ready once the app has shown what it brings; until then, and while
/clear or /sessions swaps its conversation (`hold`), messages typed are queued and commands
wait. litellm is imported in another thread a moment later.

The collector: Python's full collections scanned litellm's hundreds of thousands of objects and
froze the screen for 100-250 ms at a time while an answer streamed. So what start-up and the
preload load is frozen (`gc.freeze()`: never scanned again), the thresholds make collections
rarer (from the start of the app's path: at Python's defaults, the collections run while
Textual and the app are imported cost the first frame about 20 ms), and after each turn the
garbage is collected while the screen is idle and what survives is frozen too. Dropping a
conversation (/clear, /sessions) unfreezes everything once, so its widgets and messages are
freed.
"""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message
from textual.worker import Worker

from zizou.collector import collect_less_often, freeze, unfreeze

if TYPE_CHECKING:
    from zizou.ui.host import Host
    from zizou.ui.session import UiSession

PRELOAD_DELAY_S = 0.3  # after the first frame, so the first keystrokes come first


@dataclass(frozen=True)
class Warmup:
    """What the real app does once it is on screen: `preload` (litellm) in a thread, and the
    collector tuned as described above. Tests run without it."""

    preload: Callable[[], None]
    tune_gc: bool = True


def keep_survivors() -> None:
    """After a turn: collect its garbage now, then never scan what survives again."""
    gc.collect()
    freeze()


def reclaim_all() -> None:
    """After a conversation is dropped: collect everything, the frozen objects included."""
    unfreeze()
    keep_survivors()


@dataclass(frozen=True)
class PendingSession:
    """A session to build off the UI thread: `open()` may raise a ZizouError (a bad `-r`)."""

    root: Path
    open: Callable[[], UiSession]


class Opening:
    class Opened(Message):
        def __init__(self, session: UiSession) -> None:
            super().__init__()
            self.session = session

    class Failed(Message):
        def __init__(self, error: Exception) -> None:
            super().__init__()
            self.error = error

    def __init__(
        self, host: Host, source: UiSession | PendingSession, warmup: Warmup | None
    ) -> None:
        self.host = host
        self.pending = source if isinstance(source, PendingSession) else None
        self.session = None if isinstance(source, PendingSession) else source
        self.root = source.root
        self.preload = warmup.preload if warmup else None
        self.tune_gc = warmup.tune_gc if warmup else False
        self.preload_worker: Worker[None] | None = None
        self.error: Exception | None = None  # why the session could not be opened
        self._ready = asyncio.Event()  # open, shown, and not being swapped
        self._hurry = threading.Event()  # the preload is wanted now, not after the delay

    @property
    def ready(self) -> bool:
        return self._ready.is_set()

    @property
    def current(self) -> UiSession:
        """The session; only once it is open."""
        if self.session is None:
            raise RuntimeError("the session is not open yet")
        return self.session

    async def wait(self) -> UiSession:
        await self._ready.wait()
        return self.current

    def hold(self) -> None:
        """The session is not to be used for now (being shown, or swapped)."""
        self._ready.clear()

    def release(self) -> None:
        self._ready.set()

    def start(self) -> None:
        """The first frame is on screen: open the session and, a moment later, load litellm."""
        if self.tune_gc:
            collect_less_often()
            freeze()  # what start-up loaded stays: never scan it again
        if self.session is None:
            self.host.run_worker(self._open, thread=True, group="open", exit_on_error=False)
        if self.preload is not None:
            self.preload_worker = self.host.run_worker(
                self._preload, thread=True, group="preload", exit_on_error=False
            )

    def _open(self) -> None:
        assert self.pending is not None
        try:
            session = self.pending.open()
        except Exception as exc:  # shown by the command line after the app closes
            self.host.post_message(self.Failed(exc))
            return
        if self.tune_gc:
            freeze()
        self.host.post_message(self.Opened(session))

    def opened(self, session: UiSession) -> None:
        """The session is open; it is ready once the app has shown it (`release`)."""
        self.session = session

    def _preload(self) -> None:
        assert self.preload is not None
        self._hurry.wait(PRELOAD_DELAY_S)
        self.preload()
        if self.tune_gc:
            freeze()

    @property
    def preloading(self) -> bool:
        return self.preload_worker is not None and not self.preload_worker.is_finished

    async def wait_for_preload(self) -> None:
        """Before the first request: litellm must be loaded (it is, unless the user is quick)."""
        self._hurry.set()
        if self.preload_worker is not None and not self.preload_worker.is_finished:
            await self.preload_worker.wait()

    def turn_ended(self) -> None:
        if self.tune_gc:
            self.host.call_after_refresh(keep_survivors)

    def conversation_dropped(self) -> None:
        if self.tune_gc:
            self.host.call_after_refresh(reclaim_all)


__all__ = [
    "PRELOAD_DELAY_S",
    "Opening",
    "PendingSession",
    "Warmup",
    "keep_survivors",
    "reclaim_all",
]
