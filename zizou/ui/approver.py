"""The TUI's Approver: the loop awaits `ask`, which has the app show the approval dialog and
returns the person's answer. "Always" command rules, and MCP tools always allowed, are saved for
the project here too (in the user's config dir: `zizou.config.project_rules`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from zizou.core.protocols import Approval, PermissionRequest
from zizou.ui.host import ShowScreen

if TYPE_CHECKING:
    from textual.message import Message


class MessageTarget(Protocol):
    def post_message(self, message: Message) -> bool: ...


class TuiApprover:
    """Asks in a modal dialog, which it asks the app to show. Bind it to the app before the
    first turn runs."""

    def __init__(
        self,
        root: Path,
        save_rule: Callable[[Path, str], bool] | None = None,
        save_tool: Callable[[Path, str], bool] | None = None,
    ) -> None:
        self.root = root
        self.save_rule = save_rule
        self.save_tool = save_tool  # an MCP tool always allowed, saved for the project
        self.target: MessageTarget | None = None
        self.saved: list[str] = []

    def bind(self, target: MessageTarget) -> None:
        self.target = target

    async def ask(self, request: PermissionRequest) -> Approval:
        from zizou.ui.screens.approval import ApprovalScreen

        if self.target is None:
            return Approval("deny", "the app was not ready to ask the user")
        answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

        def answered(approval: Approval | None) -> None:
            if not answer.done():
                answer.set_result(approval or Approval("deny"))

        screen = ApprovalScreen(request, self.root)
        self.target.post_message(ShowScreen(screen, answered))
        try:
            approval = await answer
        except asyncio.CancelledError:
            if screen.is_attached and screen.is_active:
                with contextlib.suppress(Exception):
                    screen.dismiss(Approval("deny", "interrupted"))
            raise
        self._remember(request, approval)
        return approval

    def _remember(self, request: PermissionRequest, approval: Approval) -> None:
        if approval.verdict == "always" and request.kind == "mcp":
            if self.save_tool is not None:
                self.save_tool(self.root, request.tool)
            self.saved.append(request.tool)
            return
        if approval.verdict != "always" or request.tool != "run_bash":
            return
        for rule in request.suggested_rules:  # one per segment: the whole chain is covered
            if self.save_rule is not None:
                self.save_rule(self.root, rule)
            self.saved.append(rule)


__all__ = ["TuiApprover"]
