"""Answering the approval dialog: y runs once, a runs and saves the rule, n denies with a reason."""

from __future__ import annotations

import json
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.config.project_rules import load_prefixes
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.widgets.tool_row import ToolRow

COMMAND = "touch made.txt"


def bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


async def _ask(make_app: MakeApp, key: str, *more: str) -> tuple[object, list[str]]:
    app = make_app([bash(COMMAND), {"text": "finished"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "make the file")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        assert isinstance(screen, ApprovalScreen)
        await pilot.press(key, *more)
        await settle(pilot)
        model = app.session.kernel.agent.model
        tool_results = [
            m["content"]
            for m in model.requests[-1].messages
            if m["role"] == "tool"  # type: ignore[attr-defined]
        ]
        return screen, tool_results


async def test_y_runs_the_command_once(make_app: MakeApp, project: Path) -> None:
    _screen, results = await _ask(make_app, "y")
    assert (project / "made.txt").exists()
    assert results[0].startswith("exit code 0")
    assert load_prefixes(project) == []


async def test_a_runs_it_and_saves_the_rule_shown(make_app: MakeApp, project: Path) -> None:
    screen, _results = await _ask(make_app, "a")
    assert (project / "made.txt").exists()
    assert "always allow `touch` in this project" in str(screen.view.always)  # type: ignore[attr-defined]
    assert load_prefixes(project) == ["touch"]


async def test_n_denies_and_passes_the_reason_to_the_model(
    make_app: MakeApp, project: Path
) -> None:
    _screen, results = await _ask(make_app, "n", *"use python", "enter")
    assert not (project / "made.txt").exists()
    assert results == ["Error: the user did not approve this call: use python"]


async def test_the_dialog_shows_the_exact_command_its_cwd_and_timeout(
    make_app: MakeApp, project: Path
) -> None:
    command = "echo \x1b[2Jhidden\u202e; ls"
    app = make_app([bash(command), {"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        screen = app.screen
        subject = str(screen.query_one("#approval-subject").render())
        assert subject == "echo \\x1b[2Jhidden\\u202e; ls"
        where = str(screen.query_one("#approval-where").render())
        assert str(project) in where and "timeout 120 s" in where
        (row,) = app.query(ToolRow)
        assert row.waiting
        await pilot.press("escape")
        await settle(pilot)


async def test_a_saved_rule_lets_the_next_command_run_unasked(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([bash("touch one.txt"), bash("touch two.txt"), {"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("a")
        await settle(pilot)
        assert (project / "one.txt").exists() and (project / "two.txt").exists()
        assert app.session.kernel.agent.runner.rules.bash_prefixes == ("touch",)


async def test_a_where_line_wider_than_the_dialog_wraps_instead_of_being_cut(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app([bash("touch made.txt"), {"text": "ok"}])
    async with app.run_test(size=(60, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        where = app.screen.query_one("#approval-where")
        assert len(str(where.render())) > where.size.width  # the line is longer than the dialog
        assert where.size.height >= 2 and where.region.right <= 60
        await pilot.press("escape")
        await settle(pilot)
