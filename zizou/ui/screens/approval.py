"""The approval dialog: y allows once, a always (saying exactly what is saved), n denies with
an optional reason the model reads. Esc denies without a reason. A call a deck's run makes
names the decks in its first line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from zizou.contracts.protocols import Approval, PermissionRequest
from zizou.decks.display import INTO
from zizou.ui.approval_view import approval_view
from zizou.ui.text import one_line
from zizou.ui.widgets.diff_view import diff_text


def header(request: PermissionRequest, title: str) -> str:
    """The dialog's first line: `title`, or for a deck's call, which decks ask for what
    (`greet > lookup wants to run: pytest`, with INTO between the decks)."""
    if not request.chain:
        return title
    who = INTO.join(request.chain)
    what = one_line(request.summary, 80)
    protected = " (it touches a protected path)" if request.protected else ""
    if request.kind == "exec":
        return f"{who} wants to run: {what}{protected}"
    return f"{who} wants to use {request.tool}: {what}{protected}"


def writes_over(request: PermissionRequest, cwd: Path) -> bool:
    """The file a write names exists already (a symlink counts: the write replaces it too).
    The request names it after the tool, as the project-relative path the write resolved."""
    path = request.summary.removeprefix(f"{request.tool} ")
    return request.kind == "write" and path != request.summary and os.path.lexists(cwd / path)


class ApprovalScreen(ModalScreen[Approval]):
    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "once", "Allow once"),
        Binding("a", "always", "Always allow"),
        Binding("w", "with_network", "Allow once with network", show=False),
        Binding("n", "deny", "Deny"),
        Binding("escape", "dismiss_deny", "Deny", show=False),
    ]

    def __init__(self, request: PermissionRequest, cwd: Path) -> None:
        super().__init__()
        self.request = request
        self.view = approval_view(request, cwd, existing=writes_over(request, cwd))

    def compose(self) -> ComposeResult:
        view = self.view
        with Vertical(id="approval-dialog"):
            yield Label(Text(header(self.request, view.title), style="bold"), id="approval-title")
            yield Static(Text(view.subject), id="approval-subject")
            yield Static(Text(view.where), id="approval-where")
            if view.body is not None:
                body = diff_text(view.body, None) if view.body_is_diff else Text(view.body)
                with VerticalScroll(id="approval-body"):
                    yield Static(body)
            yield Static(self._keys(), id="approval-keys")

    def _keys(self) -> Text:
        rows = [("y", "allow once")]
        if self.view.network:
            rows.append(("w", self.view.network))
        if self.view.always:
            rows.append(("a", self.view.always))
        rows.append(("n", "deny (you may tell the model why) · Esc denies"))
        text = Text()
        for number, (key, what) in enumerate(rows):
            text.append("\n" if number else "")
            text.append(f" {key} ", style="bold reverse")
            text.append(f" {what}")
        if self.view.no_always:
            text.append(f"\n{self.view.no_always}", style="dim")
        return text

    def action_once(self) -> None:
        self.dismiss(Approval("once"))

    def action_with_network(self) -> None:
        if self.view.network:
            self.dismiss(Approval("once", network=True))

    def action_always(self) -> None:
        if self.view.always:
            self.dismiss(Approval("always"))

    async def action_deny(self) -> None:
        """Ask for an optional reason; Enter sends the denial."""
        if self.query("#approval-reason"):
            return
        reason = Input(
            placeholder="why not? (optional, the model reads it) · Enter denies",
            id="approval-reason",
        )
        await self.query_one("#approval-dialog").mount(reason)
        reason.focus()

    def action_dismiss_deny(self) -> None:
        self.dismiss(Approval("deny"))

    @on(Input.Submitted, "#approval-reason")
    def _reason(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(Approval("deny", event.value.strip() or None))


__all__ = ["ApprovalScreen", "header"]
