"""Everything the app would ask goes to the editor as `session/request_permission`.

The options map onto zizou's own answers: allow once; allow always, offered exactly when the
app offers it and named with the app's words for what it permits (a command's prefixes and an
MCP tool are saved for the project, as the app saves them; any other tool is allowed for the
session); reject once; and reject always, which rejects the same request again without asking
for the rest of the session (zizou keeps no rule that denies). A client that answers
`cancelled`, or that cannot be asked, denies.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from acp import RequestError, text_block, tool_content
from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from zizou.acp.tool_calls import ToolContent, shown, tool_kind
from zizou.contracts.protocols import Approval, PermissionRequest
from zizou.ui.approval_view import approval_view

log = logging.getLogger(__name__)
SaveRule = Callable[[Path, str], bool]


class PermissionClient(Protocol):
    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption]
    ) -> RequestPermissionResponse: ...


def options_for(request: PermissionRequest, root: Path) -> list[PermissionOption]:
    """The answers offered for `request`: allow always only where the app offers it."""
    always = approval_view(request, root).always
    options = [PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")]
    if always is not None:
        name = always[0].upper() + always[1:]
        options.append(PermissionOption(option_id="allow_always", name=name, kind="allow_always"))
    options.append(PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"))
    options.append(
        PermissionOption(
            option_id="reject_always",
            name="Reject, and reject this again without asking in this session",
            kind="reject_always",
        )
    )
    return options


def asked_call(request: PermissionRequest) -> ToolCallUpdate:
    """The call the editor is asked about: the tool call it was shown, with what is asked."""
    content: list[ToolContent] = []
    if request.detail:
        content.append(tool_content(text_block(shown(request.detail))))
    if request.reason:
        content.append(tool_content(text_block(f"zizou asks because {request.reason}")))
    return ToolCallUpdate(
        tool_call_id=request.call_id,
        title=request.summary,
        kind=tool_kind(request.tool),
        status="pending",
        content=content or None,
    )


class ClientApprover:
    """Asks the editor. `session_id` names the session the requests belong to, once it is
    made (the session kernel that gives it its id is built around this approver)."""

    def __init__(
        self,
        client: PermissionClient,
        root: Path,
        session_id: Callable[[], str],
        save_rule: SaveRule,
        save_tool: SaveRule,
    ) -> None:
        self.client = client
        self.root = root
        self.session_id = session_id
        self.save_rule = save_rule
        self.save_tool = save_tool
        self._rejected: set[tuple[str, str]] = set()

    async def ask(self, request: PermissionRequest) -> Approval:
        if (request.tool, request.summary) in self._rejected:
            return Approval("deny", "the user rejected this for the rest of the session")
        options = options_for(request, self.root)
        try:
            response = await self.client.request_permission(
                session_id=self.session_id(), tool_call=asked_call(request), options=options
            )
        except (ConnectionError, RequestError) as exc:
            log.warning("the editor could not be asked about %s: %s", request.tool, exc)
            return Approval("deny", "the editor could not be asked")
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Approval("deny", "the editor cancelled the request")
        chosen = outcome.option_id
        if chosen not in {option.option_id for option in options}:
            return Approval("deny", f"the editor answered with an unknown option {chosen!r}")
        if chosen == "allow_once":
            return Approval("once")
        if chosen == "allow_always":
            self._save(request)
            return Approval("always")
        if chosen == "reject_always":
            self._rejected.add((request.tool, request.summary))
        return Approval("deny")

    def _save(self, request: PermissionRequest) -> None:
        """What the app's "always" saves for the project: an MCP tool, or a command's
        prefixes (one per segment); the runner keeps the rest for the session."""
        if request.kind == "mcp":
            self.save_tool(self.root, request.tool)
        elif request.tool == "run_bash":
            for rule in request.suggested_rules:
                self.save_rule(self.root, rule)


__all__ = ["ClientApprover", "PermissionClient", "asked_call", "options_for"]
