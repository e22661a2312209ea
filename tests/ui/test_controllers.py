"""The slash commands and the model switcher, driven without a Textual app: they say what they
did through `Notices` and ask the app for screens, quitting and a fresh sidebar by message."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fake_host import FakeHost, FakeNotices
from ui_harness import scripted_session

from zizou.ui.host import QuitRequested, SessionChanged, ShowScreen
from zizou.ui.key_setup import KeyServices
from zizou.ui.model_switcher import ModelSwitcher
from zizou.ui.opening import Opening
from zizou.ui.screens.key_wizard import KeyWizardScreen
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.screens.text_viewer import TextViewerScreen
from zizou.ui.session import UiSession
from zizou.ui.slash_commands import SlashCommands
from zizou.ui.widgets.status_bar import StatusBar
from zizou.ui.workspace_commands import WorkspaceCommands


class Controllers:
    def __init__(self, session: UiSession) -> None:
        self.session = session
        self.host = FakeHost()
        self.notices = FakeNotices()
        self.opening = Opening(self.host, session, None)
        self.opening.release()  # shown: ready
        self.status = StatusBar()
        self.models = ModelSwitcher(
            self.host, self.opening, self.notices, self.status, KeyServices(environ={})
        )
        self.workspace = WorkspaceCommands(self.opening, self.notices)
        owners = [self.models, self.workspace]  # /clear and /sessions need the chat: not here
        self.commands = SlashCommands(self.host, self.opening, self.notices, owners)


@pytest.fixture
def ui(project: Path, zizou_home: Path) -> Controllers:
    session, _ = scripted_session(project)
    return Controllers(session)


async def test_context_sets_the_repo_map_budget_by_level(ui: Controllers) -> None:
    prompt = ui.session.kernel.prompt
    await ui.commands.run("context", [])
    assert "Repo map budget: 1024 tokens." in ui.notices.text
    await ui.commands.run("context", ["MAX"])
    assert prompt.map_tokens == 8192 and "8192 tokens (max)" in ui.notices.text
    await ui.commands.run("context", ["huge"])
    fix = "Use light, default or max."
    assert ui.notices.said[-1] == ("warning", "Unknown budget 'huge'.", fix)
    assert prompt.map_tokens == 8192


async def test_a_command_asks_for_a_fresh_sidebar_and_exit_asks_to_quit(ui: Controllers) -> None:
    await ui.commands.run("help", [])
    assert ui.host.of_type(SessionChanged) and not ui.host.of_type(QuitRequested)
    await ui.commands.run("exit", [])
    assert len(ui.host.of_type(QuitRequested)) == 1


async def test_prompt_is_rendered_in_a_worker_then_shown(ui: Controllers) -> None:
    await ui.commands.run("prompt", [])
    assert not ui.host.of_type(ShowScreen) and ui.host.groups == ["prompt"]
    await ui.host.finish_work()
    (shown,) = ui.host.of_type(ShowScreen)
    assert isinstance(shown.screen, TextViewerScreen)
    assert "# BASE INSTRUCTIONS" in shown.screen.text
    assert shown.screen.title_text.startswith("System prompt: BASE INSTRUCTIONS ")


async def test_add_drop_and_cost_speak_through_notices(ui: Controllers, project: Path) -> None:
    (project / "a.py").write_text("A = 1\n")
    await ui.commands.run("add", ["@a.py", "missing.py"])
    assert [w.path for w in ui.session.kernel.state.windows] == ["a.py"]
    assert [kind for kind, _, _ in ui.notices.said] == ["success", "error"]
    await ui.commands.run("drop", ["./a.py"])
    assert ui.session.kernel.state.windows == ()
    await ui.commands.run("cost", [])
    assert "This session: 0 tokens in, 0 out" in ui.notices.said[-1][1]


async def test_permissions_asks_for_a_picker_of_the_rules(ui: Controllers) -> None:
    await ui.commands.run("permissions", [])
    (shown,) = ui.host.of_type(ShowScreen)
    assert isinstance(shown.screen, PickerScreen) and shown.screen.entries == []


async def test_model_switches_and_a_missing_key_opens_the_wizard(
    project: Path, zizou_home: Path
) -> None:
    session, _ = scripted_session(project, missing=("openai/",))
    ui = Controllers(session)
    await ui.commands.run("model", ["other", "model-x"])
    assert session.model_id == "other/model-x"
    switched = "Model: other/model-x (from the next request on)."
    assert ui.notices.said[-1][:2] == ("success", switched)
    await ui.commands.run("model", ["openai/gpt-4o"])
    assert session.model_id == "other/model-x"
    kind, message, fix = ui.notices.said[-1]
    assert kind == "error" and "set OPENAI_API_KEY" in message and fix and "/keys" in fix
    (shown,) = ui.host.of_type(ShowScreen)
    assert isinstance(shown.screen, KeyWizardScreen)
    assert shown.screen.target_model == "openai/gpt-4o"


async def test_models_lists_in_a_worker_and_keeps_the_status_line(ui: Controllers) -> None:
    ui.status.state = "thinking…"
    await ui.commands.run("models", [])
    await asyncio.sleep(0)  # the worker starts, and looks the keys up in a thread
    assert ui.status.state == "listing the models…"
    await ui.host.finish_work()
    assert ui.status.state == "thinking…"
    (shown,) = ui.host.of_type(ShowScreen)
    assert isinstance(shown.screen, PickerScreen)
    assert [e.value for e in shown.screen.entries][:1] == ["scripted"]
