"""The plan gate for an editor: a turn in plan mode ended by itself with a plan that has open
items, so zizou asks, as a permission request on a `switch_mode` call, whether to switch to
build and carry the plan out, as the app's gate does. Building is the "allow" answer; any
other, `cancelled` or a client that cannot be asked keeps planning."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable

from acp import RequestError, start_tool_call, text_block, tool_content, update_tool_call
from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from zizou.acp.permissions import PermissionClient
from zizou.acp.updates import Update
from zizou.contracts.state import SessionState
from zizou.hooks.modes import open_items, plan_text

log = logging.getLogger(__name__)
Sender = Callable[[Update], Awaitable[None]]
TITLE = "Switch to build mode and carry out the plan"
BUILD = PermissionOption(
    option_id="build", name="Build: switch to build mode and carry it out", kind="allow_once"
)
KEEP_PLANNING = PermissionOption(
    option_id="keep_planning", name="Keep planning", kind="reject_once"
)


def gate_plan(state: SessionState) -> str | None:
    """The plan to ask about: in plan mode, with items still open; else None."""
    value = state.task.value if state.task is not None else None
    if state.mode != "plan" or not open_items(value):
        return None
    return plan_text(value) or None


async def ask_to_build(client: PermissionClient, session_id: str, plan: str, send: Sender) -> bool:
    """Whether the editor said build; `send` tells it of the gate's call as of any call."""
    call_id = f"plan-gate-{secrets.token_hex(4)}"
    content = [tool_content(text_block(plan))]
    await send(start_tool_call(call_id, TITLE, kind="switch_mode", content=content))
    asked = ToolCallUpdate(tool_call_id=call_id, title=TITLE, kind="switch_mode")
    try:
        response = await client.request_permission(
            session_id=session_id, tool_call=asked, options=[BUILD, KEEP_PLANNING]
        )
    except (ConnectionError, RequestError) as exc:
        log.warning("the editor could not be asked about the plan: %s", exc)
        return False
    outcome = response.outcome
    build = isinstance(outcome, AllowedOutcome) and outcome.option_id == BUILD.option_id
    await send(update_tool_call(call_id, status="completed" if build else "failed"))
    return build


__all__ = ["BUILD", "KEEP_PLANNING", "ask_to_build", "gate_plan"]
