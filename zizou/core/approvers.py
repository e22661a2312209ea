"""Approvers that need no person: a scripted one for tests and demos.

The headless approver lives with headless mode; the TUI's asks the user in a dialog.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from zizou.core.protocols import Approval, PermissionRequest


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


__all__ = ["ScriptedApprover"]
