"""What the app gives its controllers, without an app: posted messages are kept, workers run as
asyncio tasks (a thread's work runs at once), and a notice is a line in a list."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from textual.message import Message


class FakeHost:
    def __init__(self) -> None:
        self.posted: list[Message] = []
        self.groups: list[str] = []
        self._tasks: list[asyncio.Future[Any]] = []

    def run_worker(self, work: Any, *args: Any, group: str = "default", **kwargs: Any) -> Any:
        self.groups.append(group)
        if kwargs.get("thread"):
            work()
            return SimpleNamespace(is_finished=True)
        task = asyncio.ensure_future(work)
        self._tasks.append(task)
        return SimpleNamespace(is_finished=False, task=task)

    async def finish_work(self) -> None:
        """Wait for the workers started so far, and those they start."""
        while pending := [t for t in self._tasks if not t.done()]:
            await asyncio.gather(*pending)

    def call_after_refresh(self, callback: Callable[..., Any], *args: Any, **kwargs: Any) -> bool:
        callback(*args, **kwargs)
        return True

    def post_message(self, message: Message) -> bool:
        self.posted.append(message)
        return True

    def of_type(self, kind: type[Message]) -> list[Any]:
        return [m for m in self.posted if isinstance(m, kind)]


class FakeNotices:
    def __init__(self) -> None:
        self.said: list[tuple[str, str, str | None]] = []

    async def add_notice(
        self,
        message: str,
        kind: str = "info",
        fix: str | None = None,
        rows: Sequence[tuple[str, str]] = (),
    ) -> None:
        lines = [message, *(f"  {name}  {what}" for name, what in rows)]
        self.said.append((kind, "\n".join(lines), fix))

    @property
    def text(self) -> str:
        return "\n".join(message for _, message, _ in self.said)
