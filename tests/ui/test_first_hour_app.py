"""What a new user met in the app, through Pilot: the focus trap around the queue, a row still
"waiting for approval" while its command ran, command output that was not on the screen, and a
resumed session that told a different story from the one shown live."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from textual import events
from textual.widget import Widget
from ui_harness import MakeApp, scripted_factory, send, settle

from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions, SessionChoice
from zizou.config.project_rules import save_prefix
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.approver import TuiApprover
from zizou.ui.key_setup import KeyServices
from zizou.ui.launch import build_ui_session
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.status_bar import StatusBar
from zizou.ui.widgets.tool_row import ToolRow


def bash(command: str, **usage: int) -> dict[str, Any]:
    call = {"name": "run_bash", "arguments": json.dumps({"command": command})}
    return {"tool_calls": [call], **usage}


def header(row: ToolRow) -> str:
    return str(row.query_one(".tool-header").render())


async def test_tab_reaches_the_queue_and_typed_text_never_vanishes(make_app: MakeApp) -> None:
    app = make_app([{"text": "slow answer", "stall_s": 8.0}, {"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(100, 30)) as pilot:
        prompt = app.composer.area
        await send(pilot, "one")
        await settle(pilot, lambda: app.busy)
        await send(pilot, "two")
        await send(pilot, "three")
        assert "Tab to pick one: e edit · x remove" in str(app.query_one("#queue-title").render())
        await pilot.press("tab")  # as the panel says: to the queue, not into the conversation
        assert isinstance(app.focused, QueueList)
        await pilot.press("x")  # removes "two"
        assert [i.text for i in app.query_one(QueuePanel).items] == ["three"]
        await pilot.press(*"/help")  # typed with the queue focused: it lands in the prompt
        assert app.focused is prompt and app.composer.text == "/help"
        await pilot.press("escape", "tab")  # Esc closes the command menu, which had Tab
        assert isinstance(app.focused, QueueList)
        await pilot.press("tab")  # and back
        assert app.focused is prompt
        await pilot.press("tab", "escape")  # Esc brings focus home, the turn runs on
        assert app.focused is prompt and app.busy
        app.chat.focus()
        await pilot.pause()
        await pilot.press(*" hi")
        assert app.focused is prompt and app.composer.text == "/help hi"
        await pilot.press("escape")  # from the prompt, Esc interrupts
        await settle(pilot, lambda: not app.busy)


def burst(app: ZizouApp, keys: list[str]) -> None:
    """Keys arriving faster than the app handles them, as from a fast typist or a paste."""
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = events.Key(key, None if key == "enter" else key)
        event.set_sender(app)
        driver.send_message(event)


async def test_messages_typed_in_a_burst_stay_apart_and_never_vanish(make_app: MakeApp) -> None:
    app = make_app([{"text": "slow answer", "stall_s": 8.0}, {"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "one")
        await settle(pilot, lambda: app.busy)
        burst(app, [*"two", "enter", *"three", "enter"])
        await settle(pilot, lambda: len(app.queue) == 2)
        await pilot.press("tab")
        burst(app, [*"hello"])  # the first key takes the focus home; the rest follow it
        await settle(pilot, lambda: app.composer.text == "hello")
        assert [i.text for i in app.query_one(QueuePanel).items] == ["two", "three"]
        await pilot.press("escape")
        await settle(pilot, lambda: not app.busy)


async def test_tab_walks_through_the_rows_and_shift_tab_walks_back(make_app: MakeApp) -> None:
    rules = Rules(bash_prefixes=("echo",))
    app = make_app([bash("echo one"), bash("echo two"), {"text": "done"}], rules=rules)
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot)
        first, second = app.query(ToolRow)
        prompt = app.composer.area
        walk: list[Widget | None] = []
        for _ in range(3):
            await pilot.press("tab")  # no queue, no plan: the rows, newest first, then home
            walk.append(app.focused)
        assert walk == [second, first, prompt]
        await pilot.press("tab", "shift+tab")  # from a row, Shift+Tab walks back
        assert app.focused is prompt
        await pilot.press("shift+tab")  # in the prompt it switches the mode instead
        runner = app.session.kernel.agent.runner
        await settle(pilot, lambda: runner.rules.permission_mode == "auto")
        assert app.focused is prompt


async def test_an_approved_command_runs_on_its_own_clock(make_app: MakeApp) -> None:
    app = make_app([bash("sleep 30"), {"text": "never"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "wait")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        (row,) = app.query(ToolRow)
        assert "waiting for approval" in header(row)
        await pilot.pause(0.4)  # a slow answer does not count as running time
        answered = time.monotonic()
        await pilot.press("y")
        await settle(pilot, lambda: not row.waiting)
        assert "waiting for approval" not in header(row)
        assert app.query_one(StatusBar).state == "running run_bash…"
        await pilot.pause(0.5)
        await pilot.press("escape")
        await settle(pilot, lambda: not app.busy)
        since_answer = time.monotonic() - answered  # the 0.4 s wait came before it
        assert row.duration_s is not None and 0.5 <= row.duration_s < since_answer + 0.05
        assert header(row).endswith(f"{row.duration_s:.1f}s ✗ interrupted")


async def test_command_output_is_shown_under_its_row_and_expands(make_app: MakeApp) -> None:
    rules = Rules(bash_prefixes=("seq", "echo"))
    app = make_app([bash("seq 1 30"), bash("echo short"), {"text": "done"}], rules=rules)
    async with app.run_test(size=(100, 80)) as pilot:
        await send(pilot, "count")
        await settle(pilot)
        long, short = app.query(ToolRow)
        preview = long.query_one(".tool-preview")
        text = str(preview.render())
        assert text.split("\n") == [
            "⋮ 25 earlier lines · click or ctrl+o to expand",
            *[str(n) for n in range(26, 31)],
        ]
        assert preview.display and str(short.query_one(".tool-preview").render()) == "short"
        await pilot.press("ctrl+o")  # every cut output, from the prompt
        assert long.expanded and not short.expanded and not preview.display
        assert "\n1\n2\n3\n" in str(long.query_one(".tool-body").render())
        await pilot.press("ctrl+o")
        assert not long.expanded and preview.display
        await pilot.click(long.query_one(".tool-header"))  # the mouse, too
        assert long.expanded
        await pilot.click(long.query_one(".tool-header"))
        assert not long.expanded


async def ask_and_answer(pilot: Any, key: str, *more: str) -> None:
    app = pilot.app
    await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
    await pilot.press(key, *more)


def story(app: ZizouApp) -> list[tuple[str, ...]]:
    """What the conversation shows, entry by entry, without durations."""
    told: list[tuple[str, ...]] = []
    for entry in app.chat.children:
        if isinstance(entry, UserMessage):
            told.append(("you", entry.text))
        elif isinstance(entry, AssistantMessage):
            told.append(("zizou", entry.source))
        elif isinstance(entry, ToolRow):
            mark = "✓" if entry.ok else f"✗ {entry.note or ''}".strip()
            lines = entry.preview.lines if entry.preview else []
            told.append((entry.tool, entry.summary, mark, *lines))
        elif isinstance(entry, Notice) and "Resumed session" not in entry.message:
            told.append(("notice", entry.message))
    return told


def persisted_app(root: Path, replies: list[dict[str, Any]], *, resume: bool) -> ZizouApp:
    """The app with its session saved in `root`, as `zizou` (or `zizou -c`) opens it."""
    model = ScriptedModel(replies, id="scripted")
    approver = TuiApprover(root, save_prefix)
    session_choice = SessionChoice(continue_last=resume)
    options = RunOptions(root=root, model="scripted", debug_log=False, session=session_choice)
    session = build_ui_session(options, approver, models=scripted_factory(model))
    session.kernel.prompt.write_compiled = False
    return ZizouApp(session, approver, fade=False, keys=KeyServices(environ={}))


async def test_a_resumed_session_tells_the_story_shown_live(project: Path) -> None:
    (project / "here.txt").write_text("here\n")
    script = [
        {
            "tool_calls": [{"name": "read_file", "arguments": '{"path": "missing.txt"}'}],
            "prompt_tokens": 100,
            "completion_tokens": 5,
        },
        bash("rm here.txt", prompt_tokens=300, completion_tokens=20),
        {"text": "I could not read it.", "prompt_tokens": 400, "completion_tokens": 30},
        bash("sleep 30", prompt_tokens=500, completion_tokens=40),
        {"text": "never sent"},
    ]
    live = persisted_app(project, script, resume=False)
    async with live.run_test(size=(100, 40)) as pilot:
        await send(pilot, "read missing.txt")
        await ask_and_answer(pilot, "n", *"keep it", "enter")
        await settle(pilot)
        await send(pilot, "now wait")
        await ask_and_answer(pilot, "y")
        await settle(pilot, lambda: "running" in live.query_one(StatusBar).state)
        await pilot.press("escape")
        await settle(pilot, lambda: not live.busy)
        await send(pilot, "/cost")
        await settle(pilot)
        shown = story(live)
    resumed = persisted_app(project, [], resume=True)
    async with resumed.run_test(size=(100, 40)) as pilot:
        await settle(pilot, lambda: resumed.opening.ready)
        await settle(pilot)
        await send(pilot, "/cost")
        await settle(pilot)
        again = story(resumed)
    assert ("run_bash", "rm here.txt", "✗ denied") in shown
    assert ("read_file", "missing.txt", "✗") in shown
    assert ("run_bash", "sleep 30", "✗ interrupted") in shown
    assert any("Interrupted" in entry[1] for entry in shown if entry[0] == "notice")
    cost = shown[-1][1]
    assert cost.startswith("This session: 1.3k tokens in, 95 out") and "2 turns." in cost
    assert "Last turn: 500 in, 40 out" in cost
    assert again == shown
