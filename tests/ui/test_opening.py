"""The session opens in a thread once the first frame is up: what is typed meanwhile waits and
is sent when it is open, and a session that cannot be opened ends the app with the reason.
Streamed text waits for a pause in the user's typing before it is drawn."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from ui_harness import MakeApp, clock_of, scripted_session, send, settle

from zizou.errors import UsageError
from zizou.ui.app import ZizouApp
from zizou.ui.key_setup import KeyServices
from zizou.ui.opening import PendingSession
from zizou.ui.session import UiSession
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage
from zizou.ui.widgets.queue_panel import QueuePanel
from zizou.ui.widgets.status_bar import StatusBar


async def test_messages_typed_before_the_session_is_open_are_sent_once_it_is(
    project: Path, zizou_home: Path
) -> None:
    session, approver = scripted_session(project, [{"text": "hello there"}])
    gate = threading.Event()

    def open_session() -> UiSession:
        gate.wait(10)
        return session

    pending = PendingSession(project, open_session)
    app = ZizouApp(pending, approver, fade=False, keys=KeyServices(environ={}))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert app.query_one(StatusBar).state == "starting…" and app.busy
        await send(pilot, "hi")
        assert [i.text for i in app.query_one(QueuePanel).items] == ["hi"]
        gate.set()
        await settle(pilot, lambda: bool(app.query(AssistantMessage)) and not app.busy)
        await settle(pilot)
        assert [m.text for m in app.query(UserMessage)] == ["hi"]
        assert app.query_one(AssistantMessage).source == "hello there"
        assert app.query_one(StatusBar).state == "ready"


async def test_commands_typed_before_the_session_is_open_wait_without_stopping_the_app(
    project: Path, zizou_home: Path
) -> None:
    session, approver = scripted_session(project)
    gate = threading.Event()

    def open_session() -> UiSession:
        gate.wait(10)
        return session

    app = ZizouApp(PendingSession(project, open_session), approver, fade=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await send(pilot, "/cost")
        await send(pilot, "/help")
        assert not app.query(Notice) and app.composer.text == ""  # the prompt stays live
        await pilot.press(*"draft")
        assert app.composer.text == "draft"
        gate.set()
        await settle(pilot, lambda: len(app.query(Notice)) == 2)
        told = [n.message for n in app.query(Notice)]
        assert told[0].startswith("This session: 0 tokens in") and told[1].startswith("Commands:")


async def test_a_session_that_cannot_be_opened_ends_the_app_with_the_reason(
    project: Path, zizou_home: Path
) -> None:
    _, approver = scripted_session(project)

    def open_session() -> UiSession:
        raise UsageError("no session 'nope' here: `zizou sessions list` shows them")

    app = ZizouApp(PendingSession(project, open_session), approver, fade=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: app.opening.error is not None)
    assert isinstance(app.opening.error, UsageError)
    assert app.return_code == 2


async def test_streamed_text_waits_while_the_user_types(make_app: MakeApp) -> None:
    words = "".join(f"word{n} " for n in range(100))
    ended = asyncio.Event()  # the answer ends when the test says: its end shows everything
    app = make_app(
        [{"text": words, "pieces": 100, "chunk_delay_s": 0.03, "stall_after": 100, "until": ended}]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: bool(app.query(AssistantMessage)))
        message = app.query_one(AssistantMessage)
        await settle(pilot, lambda: message.markdown.source != "")
        await pilot.press("x")  # typing: what streams in meanwhile is held back
        clock = clock_of(app)
        clock.hold()  # however slow the machine, the typing has not paused
        await pilot.pause()
        shown = message.markdown.source
        for _ in range(4):
            await pilot.press("x")
        await settle(pilot, lambda: len(message.source) > len(shown))
        assert message.markdown.source == shown
        clock.release()
        ended.set()
        await settle(pilot, lambda: message.markdown.source == message.source == words)
