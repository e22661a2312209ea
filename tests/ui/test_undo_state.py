"""/undo and /redo in the app take back, and bring back, what a turn set besides files: the
goal and the plan item it ticked (the sidebar's checklist, `/state`, the next request's TASK
STATE) and the window it opened."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.widgets.messages import Notice

FIRST = {"goal": "keep me", "plan": [{"id": "p1", "title": "read", "status": "pending"}]}
TICKED = {"goal": "ship it", "plan": [{"id": "p1", "title": "read", "status": "done"}]}


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def said(app: ZizouApp) -> str:
    return "\n".join(n.message for n in app.query(Notice))


def shown(app: ZizouApp) -> tuple[str | None, tuple[str, ...], tuple[str, ...]]:
    """The goal, the sidebar's plan marks and the open windows' files."""
    state = app.session.kernel.state
    assert state.task is not None
    plan = app.sidebar.info.plan or ()
    paths = tuple(window.path for window in app.sidebar.info.windows)
    return state.task.value.get("goal"), tuple(item.status for item in plan), paths


async def test_undo_and_redo_take_back_and_bring_back_the_goal_plan_and_windows(
    make_app: MakeApp, project: Path
) -> None:
    (project / "a.py").write_text("def a():\n    return 1\n")
    (project / "b.py").write_text("def b():\n    return 2\n")
    script = [
        call("update_state", merge=FIRST),
        call("open_in_workspace", path="a.py"),
        {"text": "Planned."},
        call("update_state", merge=TICKED),
        call("open_in_workspace", path="b.py"),
        {"text": "Done."},
        {"text": "Going on."},
    ]
    app = make_app(script, rules=Rules())
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "plan it")
        await settle(pilot)
        await send(pilot, "do it")
        await settle(pilot)
        assert shown(app) == ("ship it", ("done",), ("a.py", "b.py"))

        await send(pilot, "/undo")
        await settle(pilot, lambda: "Undid turn" in said(app))
        await settle(pilot, lambda: shown(app)[1] == ("pending",))
        assert shown(app) == ("keep me", ("pending",), ("a.py",))

        app.composer.set_text("")
        await send(pilot, "/redo")
        await settle(pilot, lambda: "Redid turn" in said(app))
        await settle(pilot, lambda: shown(app)[1] == ("done",))
        assert shown(app) == ("ship it", ("done",), ("a.py", "b.py"))

        await send(pilot, "/undo")
        await settle(pilot, lambda: shown(app) == ("keep me", ("pending",), ("a.py",)))
        app.composer.set_text("")
        await send(pilot, "go on")
        await settle(pilot)
        model = app.session.kernel.agent.model
        assert isinstance(model, ScriptedModel)
        system = model.requests[-1].system
        assert '"goal":"keep me"' in system and "ship it" not in system
        assert '"status":"done"' not in system
