"""Approvers that need no person (a scripted one for tests and demos), and the wrapper that has
every approver asked one request at a time.

The headless approver lives with headless mode; the TUI's asks the user in a dialog.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Iterable

from zizou.contracts.protocols import Approval, Approver, PermissionRequest


class SerialApprover:
    """Asks `inner` one request at a time. Calls that run side by side (two read-only decks
    whose runs want to run commands) would otherwise open two dialogs at once; the later ask
    waits until the earlier one is answered. The runners of a session and of its deck runs
    share one (the main runner's): they take turns."""

    def __init__(self, inner: Approver) -> None:
        self.inner = inner
        self._lock = asyncio.Lock()

    async def ask(self, request: PermissionRequest) -> Approval:
        async with self._lock:
            return await self.inner.ask(request)


def serial(approver: Approver) -> SerialApprover:
    """`approver`, asked one request at a time (itself when it already is)."""
    return approver if isinstance(approver, SerialApprover) else SerialApprover(approver)


class ScriptedApprover:
    """Answers requests in order from a script (deny once it runs out), recording each one."""

    def __init__(self, answers: Iterable[Approval] = ()) -> None:
        self.answers = deque(answers)
        self.requests: list[PermissionRequest] = []

    async def ask(self, request: PermissionRequest) -> Approval:
        self.requests.append(request)
        if not self.answers:
            return Approval("deny", "no scripted answer left")
        return self.answers.popleft()


__all__ = ["ScriptedApprover", "SerialApprover", "serial"]
