"""The task state from the app: `/state` (its value and schema), `/state reset` (asked first),
`/state export FILE`, and the user's edits of the plan in the sidebar.

Each edit is an RFC 6902 patch applied through `SessionState.update_task` with source "user":
atomic and validated, and told to the model at its next step. A refused edit changes nothing
and says why.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.plan_edits import (
    Ops,
    PlanItem,
    add_ops,
    blocked,
    delete_ops,
    status_ops,
    title_ops,
    toggled,
)
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.contracts.state import SessionState
    from zizou.contracts.task_state import TaskState
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.plan_checklist import PlanChecklist

USAGE = "/state shows it; /state reset empties it; /state export FILE writes it as JSON."
SCHEMA_FIX = "Fix the schema file, then /clear starts a conversation that uses it."
OpsFor = Callable[[str], Ops]  # the patch that gives an item the title the user typed


class StateCommands:
    def __init__(self, host: Host, opening: Opening, notices: Notices) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices

    @property
    def state(self) -> SessionState:
        return self.opening.current.kernel.state

    @property
    def root(self) -> Path:
        return self.opening.current.root

    async def _task(self) -> TaskState | None:
        """The task state; None (said, with why) when this session has none."""
        task = self.state.task
        if task is None:
            why = self.state.task_problem or "this session has none"
            await self.notices.add_notice(f"There is no task state: {why}.", "warning", SCHEMA_FIX)
        return task

    @slash(
        "state",
        "[reset|export FILE]",
        help="the task state: show, empty or save it",
        section="context",
    )
    async def command(self, args: list[str]) -> None:
        """/state, /state reset, /state export FILE."""
        verb = args[0].lower() if args else ""
        if verb not in ("", "reset", "export"):
            await self.notices.add_notice(f"Unknown /state {args[0]!r}.", "warning", USAGE)
            return
        task = await self._task()
        if task is None:
            return
        if verb == "reset":
            self._ask_reset()
        elif verb == "export":
            await self.export(task, args[1:])
        else:
            self.show(task)

    def show(self, task: TaskState) -> None:
        from zizou.ui.screens.text_viewer import TextViewerScreen

        schema = task.schema
        text = "\n".join(
            [
                json.dumps(task.value, indent=2, ensure_ascii=False),
                "",
                f"// Its schema ({schema.source}), as the model reads it:",
                schema.typescript().rstrip(),
            ]
        )
        self.host.post_message(ShowScreen(TextViewerScreen("Task state", text)))

    def _ask_reset(self) -> None:
        from zizou.ui.screens.confirm import ConfirmScreen

        async def answered(yes: bool | None) -> None:
            if not yes:
                await self.notices.add_notice("The task state is left as it was.")
                return
            self.state.reset_task("user")
            self.host.post_message(SessionChanged())
            await self.notices.add_notice(
                "The task state is reset: the model hears of it at its next step.", "success"
            )

        question = "Reset the task state?"
        detail = "The goal, the plan, the notes go back to empty; the model is told."
        self.host.post_message(ShowScreen(ConfirmScreen(question, detail), answered))

    async def export(self, task: TaskState, args: list[str]) -> None:
        if not args:
            await self.notices.add_notice("Where to?", "warning", "/state export FILE")
            return
        try:
            target = await asyncio.to_thread(export_state, self.root, args[0], task.value)
        except IsADirectoryError as exc:
            fix = "Give a file name: /state export FILE"
            await self.notices.add_notice(f"{exc.filename} is a directory.", "warning", fix)
            return
        except OSError as exc:
            where = exc.filename or args[0]
            await self.notices.add_notice(
                f"Could not write {where}: {exc.strerror or exc}.", "error"
            )
            return
        await self.notices.add_notice(f"Task state written to {target}.", "success")

    # --- the sidebar's plan ---------------------------------------------------------------------

    async def plan_action(self, message: PlanChecklist.Action) -> None:
        """Space, b, e, a or d on the sidebar's plan."""
        items, index = message.items, message.index
        item = items[index] if index is not None and index < len(items) else None
        if message.action == "add":
            question = "A new step, after the one selected:" if item else "A new step:"
            self._ask_title(question, "", lambda title: add_ops(items, index, title))
        elif item is None or index is None:
            return
        elif message.action == "toggle":
            await self.apply(status_ops(index, item, toggled(item.status)))
        elif message.action == "block":
            await self.apply(status_ops(index, item, blocked(item.status)))
        elif message.action == "delete":
            await self.apply(delete_ops(index, item))
        else:
            self._retitle(index, item)

    def _retitle(self, index: int, item: PlanItem) -> None:
        self._ask_title("The step's title:", item.title, lambda t: title_ops(index, item, t))

    def _ask_title(self, question: str, title: str, ops: OpsFor) -> None:
        from zizou.ui.screens.plan_title import PlanTitleScreen

        async def answered(text: str | None) -> None:
            if text and text != title:
                await self.apply(ops(text))

        self.host.post_message(ShowScreen(PlanTitleScreen(question, title), answered))

    async def apply(self, ops: Ops) -> None:
        result = self.state.update_task(patch=ops, source="user")
        if not result.ok:
            moved = ops[0]["op"] == "test" and "operation 1 (test " in result.message
            fix = (
                "The plan changed meanwhile; the sidebar shows it as it is now." if moved else None
            )
            await self.notices.add_notice(result.message, "warning", fix)
        self.host.post_message(SessionChanged())


def export_state(root: Path, name: str, value: Mapping[str, Any]) -> Path:
    """Write `value` as pretty JSON to `name` (relative to the project root); where it went.
    An existing directory is refused (IsADirectoryError) rather than written into."""
    target = Path(name).expanduser()
    target = target if target.is_absolute() else root / target
    if target.is_dir():
        raise IsADirectoryError(21, "it is a directory", str(target))
    target.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return target


__all__ = ["StateCommands", "export_state"]
