"""The TUI's Approver: the loop awaits `ask`, which has the app show the approval dialog and
returns the person's answer. "Always" command rules, and MCP tools always allowed, are saved for
the project here too (in the user's config dir: `zizou.config.project_rules`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from zizou.ui.host import ShowScreen

if TYPE_CHECKING:
    from textual.message import Message

    from zizou.agent.spending import OverCap
    from zizou.contracts.protocols import Approval, PermissionRequest
    from zizou.ui.attention import Attention


class MessageTarget(Protocol):
    def post_message(self, message: Message) -> bool: ...


class TuiApprover:
    """Asks in a modal dialog, which it asks the app to show, and calls the person back to the
    terminal (the bell, a desktop notification) while it waits. Bind it to the app before the
    first turn runs. It also answers the spending cap's question (`over_cap`): raise the cap,
    or stop."""

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
        self.attention: Attention | None = None
        self.saved: list[str] = []

    def bind(self, target: MessageTarget, attention: Attention | None = None) -> None:
        self.target = target
        self.attention = attention

    async def ask(self, request: PermissionRequest) -> Approval:
        from zizou.contracts.protocols import Approval  # the app asks after its first frame
        from zizou.ui.screens.approval import ApprovalScreen

        if self.target is None:
            return Approval("deny", "the app was not ready to ask the user")
        answer: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()

        def answered(approval: Approval | None) -> None:
            if not answer.done():
                answer.set_result(approval or Approval("deny"))

        screen = ApprovalScreen(request, self.root)
        self.target.post_message(ShowScreen(screen, answered))
        if self.attention is not None:
            self.attention.call(f"waiting for your approval: {request.summary}")
        try:
            approval = await answer
        except asyncio.CancelledError:
            if screen.is_attached and screen.is_active:
                with contextlib.suppress(Exception):
                    screen.dismiss(Approval("deny", "interrupted"))
            raise
        self._remember(request, approval)
        return approval

    async def over_cap(self, over: OverCap) -> float | None:
        """A model call would pass the spending cap: ask whether to raise it (to the cap the
        question offers) or stop the turn."""
        from zizou.agent.spending import amount
        from zizou.ui.screens.confirm import ConfirmScreen

        if self.target is None:
            return None
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

        def answered(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        raised = over.suggested
        question = f"Raise the spending cap to {amount(over.unit, raised)} and go on?"
        detail = (
            f"Spent so far: {amount(over.unit, over.spent)} of the cap of "
            f"{amount(over.unit, over.cap)}. The next call to {over.model} "
            f"(~{over.request_tokens:,} tokens) could pass it. n stops the turn here; the work "
            "so far is kept."
        )
        screen = ConfirmScreen(question, detail)
        self.target.post_message(ShowScreen(screen, answered))
        if self.attention is not None:
            self.attention.call(f"the spending cap of {amount(over.unit, over.cap)} is reached")
        try:
            yes = await answer
        except asyncio.CancelledError:
            if screen.is_attached and screen.is_active:
                with contextlib.suppress(Exception):
                    screen.dismiss(False)
            raise
        return raised if yes else None

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
