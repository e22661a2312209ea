"""zizou's modes, built as a hook on the public hook API: what a user's hook can do, the modes
do, and nothing more.

- build: every tool.
- plan: read-only tools (reading, searching, the workspace, `update_state`,
  `get_instructions`); a PLAN MODE system text. A write or a command is not offered, and one
  called anyway is refused naming this hook, before any permission check, `--yes` or not.

The same hook reminds the model of the plan's open items every `reminder_steps` steps of a
turn (a setting, `plan_reminder_steps`; 0 turns it off), in either mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zizou.contracts.state import SessionState
from zizou.contracts.task_state import PLAN_MARKS
from zizou.hooks.api import Prompt, PromptContext, StepModifier
from zizou.hooks.runtime import HookSource

MODES = ("build", "plan")
NAME = "builtin:modes"
PLAN_TEXT = """\
PLAN MODE is on: investigate and plan, change nothing. You are offered only tools that read
(files, search, the workspace, the task state); writing, editing, deleting and running commands
are refused in this mode. Read what you need, then write the plan into the task state with
update_state (the `plan` items: small, checkable steps, in order) and end your turn with a short
summary of it and any questions. The user reviews the plan and switches to build mode to carry
it out."""
PLAN_WHY = "plan mode is read-only; the user switches to build mode (Shift+Tab, /mode build)"
OPEN = ("pending", "in_progress", "blocked")
GO_AHEAD = "Go ahead with the plan."  # the user's message once the plan gate said build


def read_only_reason(state: SessionState) -> str | None:
    """Why only tools that read may run now, if so: the call runner asks at every call, so
    plan mode holds even if this hook failed, and from the moment the mode is switched."""
    return PLAN_WHY if state.mode == "plan" else None


def next_mode(mode: str) -> str:
    """The mode Shift+Tab switches to."""
    return MODES[(MODES.index(mode) + 1) % len(MODES)] if mode in MODES else "build"


def plan_items(task_state: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    """The task state's plan items (the built-in schema's `plan`), well-formed ones only."""
    plan = task_state.get("plan") if isinstance(task_state, Mapping) else None
    if not isinstance(plan, list):
        return []
    return [item for item in plan if isinstance(item, Mapping) and item.get("title")]


def plan_text(task_state: Mapping[str, Any] | None) -> str:
    """The plan, one item a line with its mark, or "" when there is none."""
    return "\n".join(
        f"{PLAN_MARKS.get(str(item.get('status')), PLAN_MARKS['pending'])} {item.get('title')}"
        + (f" — {item['note']}" if item.get("note") else "")
        for item in plan_items(task_state)
    )


def open_items(task_state: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    return [item for item in plan_items(task_state) if item.get("status", "pending") in OPEN]


def modes_hook(reminder_steps: int = 6) -> HookSource:
    """The built-in modes hook, reminding open plan items every `reminder_steps` steps."""

    def render(p: Prompt) -> None:
        ctx = p.ctx
        if ctx.mode == "plan":
            p.system("PLAN MODE", PLAN_TEXT)
            p.effect(_read_only)
        if reminder_steps and ctx.step_number % reminder_steps == 0:
            left = open_items(ctx.task_state)
            if left:
                lines = "\n".join(f"- {item.get('id', '?')}: {item.get('title')}" for item in left)
                p.remind(
                    f"Open plan items ({len(left)}):\n{lines}\nKeep the plan current with "
                    "update_state: mark what is done, and say what is blocked."
                )

    return HookSource(NAME, "builtin", "python", render=render)


def _read_only(ctx: PromptContext, step: StepModifier) -> None:
    step("tools", [tool.name for tool in ctx.tools if tool.access == "read"], why=PLAN_WHY)


__all__ = [
    "GO_AHEAD",
    "MODES",
    "NAME",
    "PLAN_TEXT",
    "modes_hook",
    "next_mode",
    "open_items",
    "plan_items",
    "plan_text",
]
