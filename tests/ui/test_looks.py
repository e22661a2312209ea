"""How the screen adapts: the sidebar only where it takes at most a quarter of the width, the
mascot's full and one-line forms by the room the chat has, and Page Up / Page Down scrolling the
conversation while the prompt keeps the focus."""

from __future__ import annotations

from ui_harness import MakeApp, send, settle

from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.mascot import Mascot
from zizou.ui.widgets.mascot_art import FULL_HEIGHT


async def test_the_mascot_is_full_when_it_fits_and_one_line_when_it_does_not(
    make_app: MakeApp,
) -> None:
    for size, compact in (((100, 34), False), ((100, 24), True), ((112, 34), False)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await settle(pilot)  # opened: the welcome is mounted and the first size taken in
            mascot = app.query_one(Mascot)
            assert mascot.has_class("-compact") is compact, size
            assert mascot.size.height == (1 if compact else FULL_HEIGHT), size


async def test_the_sidebar_starts_hidden_where_it_would_take_over_a_quarter(
    make_app: MakeApp,
) -> None:
    for width, shown in ((112, False), (135, False), (136, True), (160, True)):
        app = make_app()
        async with app.run_test(size=(width, 34)) as pilot:
            await settle(pilot)  # opened: the first size was taken in long before
            sidebar = app.query_one("#sidebar")
            assert sidebar.display is shown, width
            if shown:
                assert sidebar.size.width * 4 <= width


async def test_hiding_the_sidebar_gives_the_mascot_room_for_its_full_form(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(112, 34)) as pilot:
        # opened and idle: a key pressed before would find no binding yet
        await settle(pilot, lambda: app.opening.ready and not app.busy)
        mascot = app.query_one(Mascot)
        await pilot.press("ctrl+b")
        await settle(pilot, lambda: mascot.has_class("-compact"))
        assert app.query_one("#sidebar").display
        await pilot.press("ctrl+b")
        await settle(pilot, lambda: not mascot.has_class("-compact"))
        assert mascot.size.height == FULL_HEIGHT


async def test_page_keys_scroll_the_conversation_from_the_prompt(make_app: MakeApp) -> None:
    answer = "\n\n".join(f"paragraph {n}" for n in range(120))
    app = make_app([{"text": answer}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "long")
        await settle(pilot)
        chat = app.query_one(ChatView)
        bottom = chat.scroll_y
        await pilot.press("pageup", "pageup")
        assert chat.scroll_y < bottom and app.focused is app.query_one("#prompt")
        await pilot.press("pagedown", "pagedown", "pagedown")
        await settle(pilot, lambda: chat.scroll_y == chat.max_scroll_y)
