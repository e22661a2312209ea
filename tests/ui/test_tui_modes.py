"""Modes in the app: the status bar's badge, Shift+Tab in the prompt, `/mode`, and the plan
gate that offers to build a plan once a plan-mode turn ends with one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from ui_harness import MakeApp, clock_of, send, settle

from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.modes import GO_AHEAD, STILL_PLANNING
from zizou.ui.screens.guarded import GuardedScreen
from zizou.ui.screens.plan_gate import PlanGateScreen
from zizou.ui.widgets.messages import AssistantMessage, Notice
from zizou.ui.widgets.status_bar import StatusBar
from zizou.ui.widgets.tool_row import ToolRow

PLAN = [
    {"id": "p1", "title": "Read greet.py", "status": "done"},
    {"id": "p2", "title": "Add a name parameter", "status": "pending"},
]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def said(app: ZizouApp) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def mode(app: ZizouApp) -> str:
    return app.session.kernel.state.mode


def badge(app: ZizouApp) -> str:
    return str(app.query_one(StatusBar).render()).split("○")[0].split("●")[0].strip()


def model(app: ZizouApp) -> ScriptedModel:
    found = app.session.kernel.agent.model
    assert isinstance(found, ScriptedModel)
    return found


def offered(request: Any) -> list[str]:
    return [tool.get("function", tool).get("name") for tool in request.tools]


def focus(app: ZizouApp) -> object:
    return app.focused


async def armed(pilot: Any) -> None:
    """The dialog on screen has been there long enough to take an answer."""
    clock_of(pilot.app).advance(GuardedScreen.ARM_S)
    await pilot.pause()


async def test_the_badge_follows_the_mode_even_when_another_thread_changes_it(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        status = app.query_one(StatusBar)
        assert status.mode == "build" and badge(app) == "BUILD"
        await asyncio.to_thread(app.session.kernel.state.set_mode, "plan", "user")
        await settle(pilot, lambda: status.mode == "plan")
        assert badge(app) == "PLAN"
        (span,) = [s for s in status.render().spans if s.start == 0]
        assert "on yellow" in str(span.style)  # plan stands out


async def test_shift_tab_in_the_prompt_switches_the_mode_and_says_so(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        status = app.query_one(StatusBar)
        rules = app.session.kernel.agent.runner.rules
        assert (status.mode, status.permission, rules.permission_mode) == (
            "build",
            "accept-edits",
            "accept-edits",
        )
        await pilot.press("shift+tab")  # build, auto: commands the sandbox holds just run
        await settle(pilot, lambda: status.permission == "auto")
        assert app.session.kernel.agent.runner.rules.permission_mode == "auto"
        assert app.query(Notice).last().message.startswith("Build mode, auto:")
        assert " AUTO " in status.render().plain
        await pilot.press("shift+tab")  # build, ask: edits ask too
        await settle(pilot, lambda: status.permission == "ask")
        assert app.query(Notice).last().message.startswith("Build mode, asking:")
        await pilot.press("shift+tab")  # plan
        await settle(pilot, lambda: app.query_one(StatusBar).mode == "plan")
        assert mode(app) == "plan" and app.focused is app.composer.area
        assert app.query(Notice).last().message.startswith("Plan mode: zizou reads and plans")
        await pilot.press("shift+tab")  # and round: build, accepting edits
        await settle(pilot, lambda: app.query_one(StatusBar).mode == "build")
        assert app.query(Notice).last().message.startswith("Build mode:")
        assert len(app.query(Notice).last().message.splitlines()) == 1
        assert app.session.kernel.agent.runner.rules.permission_mode == "accept-edits"


async def test_tab_walks_into_the_tool_rows_and_shift_tab_walks_back_home(
    make_app: MakeApp,
) -> None:
    app = make_app(
        [
            {"tool_calls": [call("list_dir", path=".")]},
            {"tool_calls": [call("glob", pattern="*.py")]},
            {"text": "done"},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "look")
        await settle(pilot)
        first, second = app.query(ToolRow)
        prompt = app.composer.area
        await pilot.press("tab")
        assert focus(app) is second  # newest first
        await pilot.press("tab")
        assert focus(app) is first
        await pilot.press("shift+tab")  # back, not a mode switch: the prompt has no focus
        assert focus(app) is second and mode(app) == "build"
        await pilot.press("shift+tab")
        assert focus(app) is prompt and mode(app) == "build"
        await pilot.press("tab", "tab", "tab")  # round the ring, home again
        assert focus(app) is prompt


async def test_mode_command_shows_switches_and_refuses_an_unknown_mode(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/mo")
        labels = [s.label for s in app.composer.suggestions]
        assert "/mode [build|plan]" in labels
        app.composer.set_text("")
        await send(pilot, "/mode")
        await settle(pilot, lambda: "Mode: build" in said(app))
        assert "/mode plan or /mode build switches it" in said(app)
        await send(pilot, "/mode plan")
        await settle(pilot, lambda: mode(app) == "plan")
        await settle(pilot, lambda: app.query_one(StatusBar).mode == "plan")
        await send(pilot, "/mode PLAN")
        await settle(pilot, lambda: "Already in plan mode" in said(app))
        await send(pilot, "/mode turbo")
        await settle(pilot, lambda: "Unknown mode 'turbo'" in said(app))
        last = app.query(Notice).last()
        assert last.has_class("-warning") and "the modes are build and plan" in last.message
        assert mode(app) == "plan"
        await send(pilot, "/mode build")
        await settle(pilot, lambda: mode(app) == "build")


def planning_script(then: str = "Done: greet takes a name.") -> list[dict[str, Any]]:
    return [
        {"text": "Reading.", "tool_calls": [call("update_state", merge={"plan": PLAN})]},
        {"text": "The plan is in the task state."},
        {"text": then},
    ]


async def test_the_plan_gate_yes_switches_to_build_and_goes_ahead(make_app: MakeApp) -> None:
    app = make_app(planning_script())
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        await pilot.press("shift+tab", "shift+tab", "shift+tab")  # auto, ask, then plan
        await settle(pilot, lambda: mode(app) == "plan")
        await send(pilot, "plan greet")
        await settle(pilot, lambda: isinstance(app.screen, PlanGateScreen))
        gate = app.screen
        assert isinstance(gate, PlanGateScreen)
        assert gate.plan == "☑ Read greet.py\n☐ Add a name parameter"
        assert "Switch to build and carry it out?" in str(gate.query_one("#gate-question").render())
        await armed(pilot)
        await pilot.press("y")
        await settle(pilot, lambda: len(model(app).requests) == 3)
        await settle(pilot)
        assert mode(app) == "build" and app.query_one(StatusBar).mode == "build"
        planning, _, building = model(app).requests
        assert "write_file" not in offered(planning) and "write_file" in offered(building)
        assert building.messages[-1] == {"role": "user", "content": GO_AHEAD}


async def test_the_plan_gate_no_keeps_planning(make_app: MakeApp) -> None:
    app = make_app(planning_script())
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        app.session.kernel.state.set_mode("plan", "user")
        await send(pilot, "plan greet")
        await settle(pilot, lambda: isinstance(app.screen, PlanGateScreen))
        await armed(pilot)
        await pilot.press("n")
        await settle(pilot, lambda: STILL_PLANNING in said(app))
        assert mode(app) == "plan" and len(model(app).requests) == 2
        assert not isinstance(app.screen, PlanGateScreen)


async def test_no_gate_in_build_mode_or_without_a_plan(make_app: MakeApp) -> None:
    app = make_app([*planning_script(), {"text": "Nothing to plan."}])
    async with app.run_test(size=(120, 34)) as pilot:
        await send(pilot, "plan greet")  # build mode: the plan is just the task state
        await settle(pilot)
        assert not isinstance(app.screen, PlanGateScreen)
        app.session.kernel.state.reset_task("user")
        app.session.kernel.state.set_mode("plan", "user")
        await send(pilot, "anything?")
        await settle(pilot)
        assert not isinstance(app.screen, PlanGateScreen)


async def test_keys_typed_as_the_gate_opens_go_to_the_prompt(make_app: MakeApp) -> None:
    app = make_app(planning_script())
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot)
        app.session.kernel.state.set_mode("plan", "user")
        await send(pilot, "plan greet")
        clock = clock_of(app)
        clock.hold()  # however slow the machine, no time passes between the gate and the keys
        clock.advance(AssistantMessage.TYPING_PAUSE_S)  # the answer streams: a pause after Enter
        await settle(pilot, lambda: isinstance(app.screen, PlanGateScreen))
        await pilot.press(*"yes ")  # typing on: a y for the prompt, not an answer
        assert isinstance(app.screen, PlanGateScreen) and mode(app) == "plan"
        assert app.composer.text == "yes "
        clock.advance(GuardedScreen.ARM_S + GuardedScreen.PAUSE_S)
        await pilot.press("n")  # after a pause: the answer
        clock.release()
        await settle(pilot, lambda: STILL_PLANNING in said(app))
        assert app.composer.text == "yes " and mode(app) == "plan"


async def test_a_session_that_opens_in_plan_mode_shows_it_and_clear_keeps_it(
    make_app: MakeApp,
) -> None:
    app = make_app()
    app.session.kernel.state.mode = "plan"  # as `zizou -c` or `--mode plan` leave it, untold
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: app.query_one(StatusBar).mode == "plan")
        assert "Plan mode: zizou reads and plans" in said(app)
        before = app.session.kernel
        await send(pilot, "/clear")
        await settle(pilot, lambda: app.session.kernel is not before and app.opening.ready)
        assert mode(app) == "plan" and app.query_one(StatusBar).mode == "plan"
