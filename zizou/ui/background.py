"""Blocking calls (keyring, HTTP) run in a thread behind a spinner, and can be abandoned.

A thread cannot be stopped, so cancelling only makes its answer be ignored when it comes: the
screen moves on at once and never sees a late result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from textual.widget import Widget

from zizou.ui.widgets.spinner import Spinner

T = TypeVar("T")


class BackgroundCalls:
    """`failed` shows an exception by default; `changed` is called whenever busy changes."""

    def __init__(
        self,
        owner: Widget,
        spinner: Spinner,
        failed: Callable[[Exception], None],
        changed: Callable[[], None] = lambda: None,
    ) -> None:
        self.owner = owner
        self.spinner = spinner
        self.failed = failed
        self.changed = changed
        self._attempt = 0

    @property
    def busy(self) -> bool:
        return self.spinner.spinning

    def run(
        self,
        message: str,
        work: Callable[[], T],
        done: Callable[[T], None],
        failed: Callable[[Exception], None] | None = None,
    ) -> None:
        """`work()` in a thread while the spinner shows `message`; then `done(result)`, or
        `failed(exc)` (default: the owner's), on the UI thread, unless cancelled first."""
        self._attempt += 1
        attempt = self._attempt
        self.spinner.start(message)
        self.changed()

        async def call() -> None:
            try:
                result = await asyncio.to_thread(work)
            except Exception as exc:  # whatever it is, it is shown, not raised
                self._deliver(attempt, failed or self.failed, exc)
            else:
                self._deliver(attempt, done, result)

        self.owner.run_worker(call(), group="background", exit_on_error=False)

    def _deliver(self, attempt: int, callback: Callable[[Any], None], value: object) -> None:
        if attempt != self._attempt or not self.owner.is_attached:
            return
        self.spinner.stop()
        callback(value)
        self.changed()

    def cancel(self) -> bool:
        """Forget the running call; False when none was running."""
        if not self.busy:
            return False
        self._attempt += 1
        self.spinner.stop()
        self.changed()
        return True


__all__ = ["BackgroundCalls"]
