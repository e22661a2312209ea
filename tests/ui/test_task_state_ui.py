"""The task state in the app: the plan line of a turn, the sidebar's live checklist and its
edits (each a patch with source "user", told to the model at its next step), and `/state`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.contracts.task_state import TaskState
from zizou.ui.app import ZizouApp
from zizou.ui.plan_edits import PlanItem
from zizou.ui.screens.confirm import ConfirmScreen
from zizou.ui.screens.plan_title import PlanTitleScreen
from zizou.ui.screens.text_viewer import TextViewerScreen
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.plan_checklist import PlanChecklist
from zizou.ui.widgets.plan_line import PlanLine
from zizou.ui.widgets.tool_row import ToolRow

WIDE = (150, 40)  # the sidebar shows from 136 columns
PLAN = [
    {"id": "p1", "title": "Read the test", "status": "done"},
    {"id": "p2", "title": "Fix greet", "status": "in_progress"},
    {"id": "p3", "title": "Run the suite", "status": "pending"},
]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def said(app: ZizouApp) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def task_of(app: ZizouApp) -> TaskState:
    task = app.session.kernel.state.task
    assert task is not None
    return task


def statuses(app: ZizouApp) -> list[str]:
    return [item["status"] for item in task_of(app).value["plan"]]


def checklist(app: ZizouApp) -> PlanChecklist:
    return app.sidebar.checklist


async def with_plan(app: ZizouApp, pilot: Any) -> None:
    """The plan above, set as the model would set it, shown in the sidebar."""
    app.session.kernel.state.update_task(merge={"plan": PLAN}, source="model")
    task_of(app).take_user_edits()
    await settle(pilot, lambda: len(checklist(app).items) == 3)


async def test_a_turn_shows_its_plan_in_one_line_that_follows_each_step(make_app: MakeApp) -> None:
    done = [{"op": "replace", "path": "/plan/1/status", "value": "done"}]
    bad = [{"op": "replace", "path": "/plan/9/status", "value": "done"}]
    app = make_app(
        [
            {"text": "Planning.", "tool_calls": [call("update_state", merge={"plan": PLAN})]},
            {"tool_calls": [call("update_state", patch=done)]},
            {"tool_calls": [call("update_state", patch=bad)]},
            {"text": "Fixed."},
            {"text": "Nothing to plan."},
        ]
    )
    async with app.run_test(size=(120, 30)) as pilot:
        await send(pilot, "fix greet")
        await settle(pilot)
        (line,) = app.query(PlanLine)
        assert line.text == "▸ plan: ☑ Read the test · ☑ Fix greet · ☐ Run the suite"
        # The line follows the last step that changed the state; the refused patch has a row.
        (row,) = app.query(ToolRow)
        assert row.tool == "update_state" and row.ok is False
        children = list(app.chat.children)
        assert children.index(line) < children.index(row)
        await send(pilot, "thanks")  # a turn that leaves the state alone has no plan line
        await settle(pilot)
        assert len(app.query(PlanLine)) == 1


async def test_the_sidebar_lists_the_plan_and_follows_changes_from_another_thread(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await settle(pilot)  # opened: the sidebar was fitted to the first size long before
        assert checklist(app).display and checklist(app).items == ()
        state = app.session.kernel.state
        await asyncio.to_thread(state.update_task, merge={"plan": PLAN}, source="model")
        await settle(pilot, lambda: len(checklist(app).items) == 3)
        rows = [str(checklist(app).get_option_at_index(i).prompt) for i in range(3)]
        assert rows == ["☑ Read the test", "◐ Fix greet", "☐ Run the suite"]
        block = [{"op": "replace", "path": "/plan/2/status", "value": "blocked"}]
        await asyncio.to_thread(state.update_task, patch=block, source="model")
        await settle(pilot, lambda: checklist(app).items[2].status == "blocked")
        assert str(checklist(app).get_option_at_index(2).prompt) == "⊘ Run the suite"


async def test_space_in_the_plan_sends_a_user_patch_the_model_is_told_of(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await with_plan(app, pilot)
        await pilot.press("tab")
        assert app.focused is checklist(app)
        await pilot.press("down", "down", "space")
        await settle(pilot, lambda: statuses(app)[2] == "done")
        assert statuses(app) == ["done", "in_progress", "done"]
        (edit,) = task_of(app).take_user_edits()
        assert edit.kind == "patch"
        assert edit.patch == [
            {"op": "test", "path": "/plan/2/id", "value": "p3"},
            {"op": "replace", "path": "/plan/2/status", "value": "done"},
        ]
        await pilot.press("space")  # and back
        await settle(pilot, lambda: statuses(app)[2] == "pending")
        await pilot.press("escape")
        assert app.focused is app.composer.area


async def test_the_plan_keys_block_edit_add_and_delete(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await with_plan(app, pilot)
        await pilot.press("tab", "b")
        await settle(pilot, lambda: statuses(app)[0] == "blocked")
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, PlanTitleScreen))
        await pilot.press("s", "enter")  # typed at the end of the title
        await settle(pilot, lambda: task_of(app).value["plan"][0]["title"] == "Read the tests")
        await pilot.press("a")
        await settle(pilot, lambda: isinstance(app.screen, PlanTitleScreen))
        await pilot.press(*"Add a test", "enter")
        await settle(pilot, lambda: len(task_of(app).value["plan"]) == 4)
        added = task_of(app).value["plan"][1]
        assert added == {"id": "p4", "title": "Add a test", "status": "pending"}
        assert checklist(app).highlighted == 1  # the new item is selected
        await pilot.press("d")
        await settle(pilot, lambda: len(task_of(app).value["plan"]) == 3)
        assert [i["id"] for i in task_of(app).value["plan"]] == ["p1", "p2", "p3"]
        await pilot.press("e")
        await settle(pilot, lambda: isinstance(app.screen, PlanTitleScreen))
        await pilot.press("escape")  # cancelled: nothing changes
        await settle(pilot, lambda: app.focused is checklist(app))
        kinds = [e.patch[-1]["op"] for e in task_of(app).take_user_edits()]
        assert kinds == ["replace", "replace", "add", "remove"]
        await pilot.press("x")  # text for nobody here goes to the prompt
        assert app.focused is app.composer.area and app.composer.text == "x"


async def test_a_refused_plan_edit_says_why_and_changes_nothing(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await with_plan(app, pilot)
        stale = (PlanItem("p9", "Gone", "pending"), *checklist(app).items)
        checklist(app).post_message(PlanChecklist.Action("toggle", 0, stale))
        await settle(pilot, lambda: "Not applied" in said(app))
        warning = app.query(Notice).last()
        assert warning.has_class("-warning") and "/plan/0/id" in warning.message
        assert "The plan changed meanwhile" in str(warning.render())
        assert statuses(app) == ["done", "in_progress", "pending"]
        assert task_of(app).take_user_edits() == []


async def test_tab_reaches_the_plan_only_while_the_sidebar_shows_it(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await with_plan(app, pilot)
        await pilot.press("tab")
        assert app.focused is checklist(app)
        await pilot.press("ctrl+b")  # hidden with the focus in it: the prompt takes it
        assert app.focused is app.composer.area
        await pilot.press("tab")
        assert app.focused is app.composer.area


async def test_state_shows_the_value_and_its_schema(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await with_plan(app, pilot)
        await send(pilot, "/state")
        await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
        text = app.screen.text  # type: ignore[attr-defined]
        assert '"title": "Fix greet"' in text and '  "plan": [' in text
        assert "type TaskState" in text or "interface TaskState" in text


async def test_state_says_why_there_is_none(make_app: MakeApp, project: Path) -> None:
    (project / ".zizou").mkdir()
    (project / ".zizou" / "state.schema.json").write_text("{not json")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: "state.schema.json" in said(app))  # said at the start
        await send(pilot, "/state")
        last = app.query(Notice).last()
        assert last.message.startswith("There is no task state: .zizou/state.schema.json")
        assert "line 1" in last.message


async def test_state_reset_asks_first(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await with_plan(app, pilot)
        await send(pilot, "/state reset")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("n")
        await settle(pilot, lambda: "left as it was" in said(app))
        assert len(task_of(app).value["plan"]) == 3
        await send(pilot, "/state reset")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, lambda: "The task state is reset" in said(app))
        assert task_of(app).value["plan"] == []
        assert [e.kind for e in task_of(app).take_user_edits()] == ["reset"]


async def test_state_export_writes_json_in_the_project(make_app: MakeApp, project: Path) -> None:
    (project / "out").mkdir()
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await with_plan(app, pilot)
        await send(pilot, "/state export state.json")
        await settle(pilot, lambda: "written to" in said(app))
        target = project / "state.json"
        assert f"Task state written to {target}." in said(app)
        assert json.loads(target.read_text())["plan"] == PLAN
        await send(pilot, "/state export out")
        await settle(pilot, lambda: "is a directory" in said(app))
        assert (project / "out").is_dir() and not list((project / "out").iterdir())
        await send(pilot, "/state frobnicate")
        assert "Unknown /state 'frobnicate'" in said(app)
