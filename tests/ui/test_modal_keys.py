"""Keys typed while a dialog is open reach the prompt (or the dialog, when it takes them): none
is dropped without a trace."""

from __future__ import annotations

from ui_harness import MakeApp, send, settle

from zizou.ui.screens.confirm import ConfirmScreen
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.screens.text_viewer import TextViewerScreen


async def test_typing_over_a_text_view_closes_it_and_types_into_the_prompt(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/state")
        await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
        await pilot.press("q", "u", "i", "t", "e", "space", "o", "k")
        await settle(pilot, lambda: app.composer.area.text == "quite ok")
        assert not isinstance(app.screen, TextViewerScreen)
        assert app.composer.area.text == "quite ok"


async def test_keys_that_only_move_stay_with_the_text_view(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/state")
        await settle(pilot, lambda: isinstance(app.screen, TextViewerScreen))
        await pilot.press("down", "pagedown")
        assert isinstance(app.screen, TextViewerScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, TextViewerScreen)
        assert app.composer.area.text == ""


async def test_a_key_that_answers_nothing_in_a_question_goes_to_the_prompt(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/state reset")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("w", "h", "a", "t")
        assert isinstance(app.screen, ConfirmScreen)  # still asking
        await pilot.press("n")
        await settle(pilot, lambda: not isinstance(app.screen, ConfirmScreen))
        assert app.composer.area.text == "what"


async def test_typing_over_a_list_that_does_not_filter_goes_to_the_prompt(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "/permissions")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        await pilot.press("h", "i")
        assert isinstance(app.screen, PickerScreen)
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, PickerScreen))
        assert app.composer.area.text == "hi"
