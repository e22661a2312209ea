"""The rules the app starts with: the user's saved ones for this project, never a rules file the
project ships (a cloned repository must not approve its own commands)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ui_harness import SESSION_ID, scripted_factory, send, settle

from zizou.agent.permissions import Rules
from zizou.config.options import Flags, resolve_options, with_saved_rules
from zizou.config.project_rules import load_prefixes, load_tool_rules, save_prefix, save_tool_rule
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.approver import TuiApprover
from zizou.ui.key_setup import KeyServices
from zizou.ui.launch import build_ui_session
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.widgets.messages import Notice


def bash(command: str) -> dict[str, object]:
    return {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": command})}]}


def plant_project_rules(root: Path, *prefixes: str) -> None:
    (root / ".zizou").mkdir(exist_ok=True)
    data = {"version": 1, "bash_prefixes": list(prefixes)}
    (root / ".zizou" / "permissions.json").write_text(json.dumps(data))


def launched_app(root: Path, replies: list[dict[str, Any]]) -> ZizouApp:
    """The app as `run_tui` opens it, around a scripted model."""
    model = ScriptedModel(replies, id="scripted")
    approver = TuiApprover(root, save_prefix)
    options = resolve_options(Flags(cwd=root, model="scripted", debug_log=False))
    session = build_ui_session(options, approver, models=scripted_factory(model), persist=False)
    session.kernel.session_id = SESSION_ID
    session.kernel.prompt.write_compiled = False
    return ZizouApp(session, approver, fade=False, keys=KeyServices(environ={}))


def said(app: ZizouApp) -> str:
    return "\n".join(str(n.render()) for n in app.query(Notice))


def test_saved_rules_join_the_command_line_ones(project: Path, zizou_home: Path) -> None:
    save_prefix(project, "pytest")
    save_prefix(project, "make")
    merged, warnings = with_saved_rules(project, Rules(bash_prefixes=("make",)))
    assert merged.bash_prefixes == ("make", "pytest") and warnings == []


async def test_a_shipped_rules_file_approves_nothing_and_is_named_once(
    project: Path, zizou_home: Path
) -> None:
    plant_project_rules(project, "touch")
    app = launched_app(project, [bash("touch made.txt"), {"text": "finished"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert said(app).count(".zizou/permissions.json in this project is ignored") == 1
        assert app.session.kernel.agent.runner.rules.bash_prefixes == ()
        await send(pilot, "make the file")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))  # it asks
        await pilot.press("n", "enter")
        await settle(pilot)
    assert not (project / "made.txt").exists()


async def test_an_always_answer_is_saved_for_the_next_launch(
    project: Path, zizou_home: Path
) -> None:
    app = launched_app(project, [bash("touch one.txt"), {"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await pilot.press("a")
        await settle(pilot)
    assert load_prefixes(project) == ["touch"]
    assert not (project / ".zizou" / "permissions.json").exists()

    again = launched_app(project, [bash("touch two.txt"), {"text": "done"}])
    async with again.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot)
        assert not isinstance(again.screen, ApprovalScreen)
    assert (project / "two.txt").exists()
    assert "ignored" not in said(again)


async def test_permissions_lists_a_saved_mcp_rule_and_removes_it(
    project: Path, zizou_home: Path
) -> None:
    save_tool_rule(project, "mcp__git__git_log")
    app = launched_app(project, [])
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert app.session.kernel.agent.runner.rules.saved_tools == ("mcp__git__git_log",)
        await send(pilot, "/permissions")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        [entry] = picker.entries
        assert (entry.label, entry.note, entry.removable) == (
            "mcp__git__git_log",
            "saved for this project",
            True,
        )
        await pilot.press("d")
        await settle(pilot, lambda: "asks again" in said(app))
        assert app.session.kernel.agent.runner.rules.saved_tools == ()
    assert load_tool_rules(project) == []
