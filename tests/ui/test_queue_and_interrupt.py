"""The prompt stays live while a turn runs: messages queue in order; Esc stops the turn, its
stream and its commands' process groups (the model then reads that the command was interrupted,
after how long, and the reply as far as it came, marked so); Ctrl+C twice quits."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

from ui_harness import MakeApp, send, settle

from zizou.agent.loop import CUT_REPLY
from zizou.agent.permissions import Rules
from zizou.providers.fake import ScriptedModel
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel


def user_texts(app: object) -> list[str]:
    return [m.text for m in app.query(UserMessage)]  # type: ignore[attr-defined]


async def test_messages_sent_while_busy_are_queued_and_sent_in_order(make_app: MakeApp) -> None:
    answered = asyncio.Event()  # the first answer stalls until the queue is checked
    app = make_app(
        [
            {"text": "first answer", "until": answered},
            {"text": "second answer"},
            {"text": "third answer"},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "one")
        await settle(pilot, lambda: app.busy)
        await send(pilot, "two")
        await send(pilot, "three")
        panel = app.query_one(QueuePanel)
        assert [i.text for i in panel.items] == ["two", "three"]
        assert panel.display
        answered.set()
        await settle(pilot, lambda: not app.busy and not len(app.queue))
        await settle(pilot)
        assert user_texts(app) == ["one", "two", "three"]
        assert [m.source for m in app.query(AssistantMessage)] == [
            "first answer",
            "second answer",
            "third answer",
        ]
        assert not panel.display


async def test_a_queued_message_can_be_edited_in_place_and_removed(make_app: MakeApp) -> None:
    answered = asyncio.Event()  # the first answer stalls until the queue is edited
    app = make_app([{"text": "first", "until": answered}, {"text": "x"}, {"text": "y"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "one")
        await settle(pilot, lambda: app.busy)
        await send(pilot, "two")
        await send(pilot, "three")
        await send(pilot, "four")
        queue_list = app.query_one(QueueList)
        queue_list.focus()
        queue_list.highlighted = 1
        await pilot.press("x")  # removes "three"
        queue_list.highlighted = 0
        await pilot.press("e")  # edits "two"
        assert app.composer.text == "two"
        await send(pilot, "two, edited")
        assert [i.text for i in app.query_one(QueuePanel).items] == ["two, edited", "four"]
        answered.set()
        await settle(pilot, lambda: not app.busy and not len(app.queue))
        await settle(pilot)
        assert user_texts(app) == ["one", "two, edited", "four"]


def _running(marker: str) -> list[int]:
    """Processes whose command line holds `marker`, as seen from outside any sandbox."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and marker in (entry / "cmdline").read_bytes().decode():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def test_esc_kills_a_long_command_and_its_process_group(
    make_app: MakeApp, project: Path
) -> None:
    marker = f"{30 + os.getpid() % 1000 / 1000:.3f}"  # a sleep no other test runs
    command = f"touch started.txt; sleep {marker}; touch finished.txt"
    call = {"name": "run_bash", "arguments": json.dumps({"command": command})}
    app = make_app([{"tool_calls": [call]}, {"text": "never"}], rules=Rules(yes=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "run the long thing")
        await settle(pilot, lambda: bool(_running(f"sleep\0{marker}")))
        await pilot.press("escape")
        await settle(pilot)
        await settle(pilot, lambda: not _running(f"sleep\0{marker}"))
        assert not _running(f"sleep\0{marker}")
        assert (project / "started.txt").exists()  # what it did until then is done
        assert not (project / "finished.txt").exists()
        assert any("Interrupted" in n.message for n in app.query(Notice))
        messages = app.session.kernel.agent.conversation.messages
        assert messages[-1]["role"] == "tool"  # it ran: how long, not that it did not
        assert re.match(r"Error: \[interrupted after \d+\.\d s", messages[-1]["content"])


async def test_esc_closes_a_stalled_stream_and_the_next_turn_works(make_app: MakeApp) -> None:
    app = make_app([{"text": "partial and then nothing", "stall_s": 60}, {"text": "fresh"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot, lambda: bool(app.query(AssistantMessage)))
        await pilot.press("escape")
        await settle(pilot)
        assert not app.busy
        await send(pilot, "again")
        await settle(pilot)
        assert [m.source for m in app.query(AssistantMessage)][-1] == "fresh"


async def test_a_reply_cut_by_esc_stays_in_the_history_marked_interrupted(
    make_app: MakeApp,
) -> None:
    app = make_app([{"text": "partial and then nothing", "stall_s": 60}, {"text": "fresh"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot, lambda: bool(app.query(AssistantMessage)))
        shown = app.query(AssistantMessage)[-1].source
        await pilot.press("escape")
        await settle(pilot)
        messages = app.session.kernel.agent.conversation.messages
        assert [m["role"] for m in messages] == ["user", "assistant"]
        assert messages[-1]["content"] == f"{shown}{CUT_REPLY}"
        await send(pilot, "again")
        await settle(pilot)
        model = app.session.kernel.agent.model
        assert isinstance(model, ScriptedModel)
        sent = model.requests[-1].messages
        assert sent[1]["content"].endswith("[interrupted: the user stopped this reply here]")


async def test_after_esc_the_queue_waits_until_the_user_sends_again(make_app: MakeApp) -> None:
    app = make_app([{"text": "slow", "stall_s": 60}, {"text": "queued answer"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "one")
        await settle(pilot, lambda: app.busy)
        await send(pilot, "two")
        await pilot.press("escape")
        await settle(pilot)
        assert app.queue.paused and [i.text for i in app.queue.items] == ["two"]
        await send(pilot, "")
        await settle(pilot, lambda: not len(app.queue))
        await settle(pilot)
        assert user_texts(app) == ["one", "two"]


async def test_ctrl_c_twice_quits(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("ctrl+c")
        assert app.is_running
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0
