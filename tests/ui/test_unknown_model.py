"""A misspelt model id in the app, opened as the app opens models: the message names the fix,
and no key wizard opens for a provider that was only guessed."""

from __future__ import annotations

from pathlib import Path

from ui_harness import scripted_session, settle

from zizou.config.options import RunOptions
from zizou.ui.app import ZizouApp
from zizou.ui.key_setup import KeyServices
from zizou.ui.launch import build_ui_session, model_factory
from zizou.ui.screens.key_wizard import KeyWizardScreen
from zizou.ui.widgets.messages import Notice

MESSAGE = "unknown model gpt-4o-typo: did you mean gpt-4o? see `zizou models`"


async def test_a_misspelt_model_says_so_without_opening_the_key_wizard(project: Path) -> None:
    _, approver = scripted_session(project)
    options = RunOptions(root=project, model="gpt-4o-typo", debug_log=False)
    session = build_ui_session(options, approver, models=model_factory(options), persist=False)
    assert session.model_problem_kind == "unknown_model"
    app = ZizouApp(session, approver, fade=False, keys=KeyServices(environ={}))
    async with app.run_test(size=(110, 30)) as pilot:
        await settle(pilot, lambda: any(MESSAGE in n.message for n in app.query(Notice)))
        await settle(pilot)
        assert not isinstance(app.screen, KeyWizardScreen)
