"""The looks, pinned: the main screen (wide and 80x24), the sidebar with the workspace, the
plan (its line in the conversation, its checklist in the sidebar), the model's reasoning folded
above its answer, the approval dialog and the key wizard.

The project lives at a fixed path and the session id is fixed, so the pictures are stable;
tool durations are set to a fixed value before the picture is taken.
Update them with `pytest tests/ui/test_snapshots.py --snapshot-update` after a deliberate change.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_harness import build_app, clock_of, send, settle
from waiting import exclusive

from zizou.ui.key_setup import KeyServices
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.screens.key_wizard import KeyWizardScreen
from zizou.ui.widgets.provider_list import ProviderList
from zizou.ui.widgets.tool_row import ToolRow

SNAP_ROOT = Path(tempfile.gettempdir()) / "zizou-snapshot" / "project"
ANSWER = """\
I changed `greet` to take a name, and added a test.

- `app.py`: `greet(name)` returns `Hello, {name}!`
- `test_app.py`: checks it

Run `pytest -q` to check."""


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": json.dumps(arguments)}


@pytest.fixture
def snap_project(zizou_home: Path) -> Iterator[Path]:
    # The path is in the pictures, so it cannot be made unique: parallel tests take turns.
    with exclusive(SNAP_ROOT.parent.with_name("zizou-snapshot.lock")):
        shutil.rmtree(SNAP_ROOT.parent, ignore_errors=True)
        SNAP_ROOT.mkdir(parents=True)
        (SNAP_ROOT / "app.py").write_text('def greet():\n    return "Hello!"\n')
        yield SNAP_ROOT
        shutil.rmtree(SNAP_ROOT.parent, ignore_errors=True)


def conversation_script() -> list[dict[str, Any]]:
    return [
        {"tool_calls": [call("read_file", path="app.py")]},
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="app.py",
                    old_string='def greet():\n    return "Hello!"',
                    new_string='def greet(name):\n    return f"Hello, {name}!"',
                )
            ]
        },
        {"text": ANSWER, "pieces": 7},
    ]


def steady_cursor(pilot: Any) -> None:
    """The prompt has focus from the first frame, so its cursor would blink during a snapshot."""
    pilot.app.screen_stack[0].query_one("#prompt").cursor_blink = False


def after(text: str) -> Callable[[Any], Any]:
    async def run_before(pilot: Any) -> None:
        steady_cursor(pilot)
        await send(pilot, text)
        await settle(pilot)
        for row in pilot.app.query(ToolRow):
            row.duration_s = 0.1
            row._refresh_header()
        await pilot.pause()

    return run_before


def test_main_screen(snap_compare: Any, snap_project: Path) -> None:
    app = build_app(snap_project, conversation_script())
    assert snap_compare(app, terminal_size=(100, 34), run_before=after("make greet take a name"))


def test_main_screen_at_80x24(snap_compare: Any, snap_project: Path) -> None:
    app = build_app(snap_project, conversation_script())
    assert snap_compare(app, terminal_size=(80, 24), run_before=after("make greet take a name"))


def test_sidebar_with_the_workspace(snap_compare: Any, snap_project: Path) -> None:
    """Wide enough for the sidebar: its windows, one lost (its anchor no longer matches), and
    the context in use."""
    (snap_project / "util.py").write_text("def helper():\n    return 1\n")
    app = build_app(snap_project, [{"text": "Opened.", "prompt_tokens": 2048}])

    async def run_before(pilot: Any) -> None:
        steady_cursor(pilot)
        await send(pilot, "/add app.py:1-2 app.py#/def greet/ util.py#/def helper/")
        await send(pilot, "look at @util.py")
        await settle(pilot)
        (snap_project / "util.py").write_text("def renamed():\n    return 1\n")
        await asyncio.to_thread(pilot.app.session.kernel.prompt.render)
        await settle(pilot, lambda: pilot.app.sidebar.info.windows[2].status == "lost")
        # The system prompt's text changes with every edit of its instructions: not pinned here.
        sidebar = pilot.app.sidebar
        sidebar.info = dataclasses.replace(sidebar.info, prompt_chars=0, prompt_preview="")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(150, 34), run_before=run_before)


def test_the_plan_in_the_conversation_and_the_sidebar(
    snap_compare: Any, snap_project: Path
) -> None:
    """A turn's plan line, and the sidebar's checklist with the focus in it (Tab)."""
    plan = [
        {"id": "p1", "title": "Read the failing test", "status": "done"},
        {"id": "p2", "title": "Make greet take a name", "status": "in_progress"},
        {"id": "p3", "title": "Run the suite", "status": "blocked", "note": "no database here"},
        {"id": "p4", "title": "Update the changelog", "status": "pending"},
    ]
    script = [
        {
            "text": "A plan first.",
            "tool_calls": [call("update_state", merge={"plan": plan})],
            "prompt_tokens": 2000,
            "completion_tokens": 40,
        },
        {"text": "On it.", "prompt_tokens": 2048, "completion_tokens": 3},
    ]
    app = build_app(snap_project, script)

    async def run_before(pilot: Any) -> None:
        steady_cursor(pilot)
        await send(pilot, "make greet take a name")
        await settle(pilot)
        sidebar = pilot.app.sidebar
        sidebar.info = dataclasses.replace(sidebar.info, prompt_chars=0, prompt_preview="")
        await pilot.press("tab", "down")
        await pilot.pause()

    assert snap_compare(app, terminal_size=(150, 34), run_before=run_before)


def test_reasoning_folded_above_the_answer(snap_compare: Any, snap_project: Path) -> None:
    """Each step's reasoning as its one summary line, the app's clock held so it took 0 s."""
    script = [
        {
            "reasoning": "I should read app.py first.",
            "tool_calls": [call("read_file", path="app.py")],
        },
        {"reasoning": "greet takes no name yet.\nSo the answer is no.", "text": "No, not yet."},
    ]
    app = build_app(snap_project, script)

    async def run_before(pilot: Any) -> None:
        clock_of(pilot.app).hold()
        await after("does greet take a name?")(pilot)

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_approval_dialog(snap_compare: Any, snap_project: Path) -> None:
    command = "pytest -q tests/test_app.py && git diff --stat"
    app = build_app(snap_project, [{"tool_calls": [call("run_bash", command=command)]}])

    async def run_before(pilot: Any) -> None:
        steady_cursor(pilot)
        await send(pilot, "run the tests")
        await settle(pilot, lambda: isinstance(pilot.app.screen, ApprovalScreen))

    assert snap_compare(app, terminal_size=(100, 30), run_before=run_before)


def test_key_wizard(snap_compare: Any, snap_project: Path, memory_keyring: Any) -> None:
    """First run without a key for the model: the wizard over the main screen, with a key in
    the (fake) OS keyring for one provider and one from the environment for another."""
    memory_keyring.store[("zizou", "anthropic")] = "sk-ant-stored-0123456789"
    environ = {"GROQ_API_KEY": "gsk_from_env_0123456789"}
    app = build_app(
        snap_project,
        model_id="openai/gpt-4o",
        missing=("openai/",),
        keys=KeyServices(environ=environ),
    )

    async def run_before(pilot: Any) -> None:
        def listed() -> bool:
            screen = pilot.app.screen
            return (
                isinstance(screen, KeyWizardScreen)
                and bool(screen.query_one(ProviderList).rows)
                and not screen.calls.busy
            )

        steady_cursor(pilot)
        await settle(pilot, listed)

    assert snap_compare(app, terminal_size=(100, 34), run_before=run_before)
