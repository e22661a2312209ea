"""The sidebar never leaves the conversation too narrow to read: it gives way when the window
shrinks, and comes back when it widens again if it was showing (by the width or by Ctrl+B)."""

from __future__ import annotations

from ui_harness import MakeApp, settle

from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.sidebar import MIN_CHAT_WIDTH


async def test_a_sidebar_opened_by_the_width_gives_way_to_a_narrow_window(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(150, 40)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        assert sidebar.display
        await pilot.resize_terminal(50, 30)
        await settle(pilot, lambda: not sidebar.display)
        assert app.query_one(ChatView).size.width >= 40
        await pilot.resize_terminal(150, 40)
        await settle(pilot, lambda: sidebar.display)


async def test_a_sidebar_opened_with_ctrl_b_hides_below_the_chat_s_minimum_and_returns(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(112, 34)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        await pilot.press("ctrl+b")
        await settle(pilot, lambda: sidebar.display)
        await pilot.resize_terminal(50, 30)
        await settle(pilot, lambda: not sidebar.display)
        await pilot.resize_terminal(112, 34)
        await settle(pilot, lambda: sidebar.display)
        assert app.query_one(ChatView).size.width >= MIN_CHAT_WIDTH
        await pilot.press("ctrl+b")  # the user's choice to hide it holds at any width
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        assert not sidebar.display


async def test_ctrl_b_in_a_narrow_window_shows_the_sidebar_once_there_is_room(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(70, 30)) as pilot:
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        await pilot.press("ctrl+b")
        await pilot.pause()
        assert not sidebar.display
        await pilot.resize_terminal(120, 30)
        await settle(pilot, lambda: sidebar.display)
