"""The TUI's Approver: the loop awaits `ask`, which shows the approval dialog and returns the
person's answer. "Always" command rules are saved for the project here too (in the user's config
dir: `zizou.config.project_rules`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.core.protocols import Approval, PermissionRequest

if TYPE_CHECKING:
    from textual.app import App


class TuiApprover:
    """Asks in a modal dialog. Bind it to the app before the first turn runs."""

    def __init__(self, root: Path, save_rule: Callable[[Path, str], bool] | None = None) -> None:
        self.root = root
        self.save_rule = save_rule
        self.app: App[Any] | None = None
        self.saved: list[str] = []

    def bind(self, app: App[Any]) -> None:
        self.app = app

    async def ask(self, request: PermissionRequest) -> Approval:
        from zizou.ui.screens.approval import ApprovalScreen

        if self.app is None:
            return Approval("deny", "the app was not ready to ask the user")
        answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

        def answered(approval: Approval | None) -> None:
            if not answer.done():
                answer.set_result(approval or Approval("deny"))

        screen = ApprovalScreen(request, self.root)
        self.app.push_screen(screen, answered)
        try:
            approval = await answer
        except asyncio.CancelledError:
            if screen.is_attached and self.app.screen is screen:
                with contextlib.suppress(Exception):
                    screen.dismiss(Approval("deny", "interrupted"))
            raise
        self._remember(request, approval)
        return approval

    def _remember(self, request: PermissionRequest, approval: Approval) -> None:
        if approval.verdict != "always" or request.tool != "run_bash":
            return
        for rule in request.suggested_rules:  # one per segment: the whole chain is covered
            if self.save_rule is not None:
                self.save_rule(self.root, rule)
            self.saved.append(rule)


__all__ = ["TuiApprover"]
