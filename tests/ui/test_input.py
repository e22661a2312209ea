"""The prompt: multi-line editing, history, `@file` completion, `!command`, `/` completion,
links that ask first, and a scrollback that stays where the user left it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import Markdown, OptionList
from ui_harness import MakeApp, send, settle

from zizou.contracts.messages import UserMessage as CoreUserMessage
from zizou.ui.screens.link_confirm import LinkConfirmScreen
from zizou.ui.shell import shell_note
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.messages import AssistantMessage, Notice, UserMessage
from zizou.ui.widgets.tool_row import ToolRow


async def test_ctrl_j_adds_a_line_and_enter_sends_both(make_app: MakeApp) -> None:
    app = make_app([{"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"line one", "ctrl+j", *"line two", "enter")
        await settle(pilot)
        assert [m.text for m in app.query(UserMessage)] == ["line one\nline two"]


async def test_typed_ahead_lines_are_sent_in_order_and_the_rest_waits_in_the_prompt(
    make_app: MakeApp,
) -> None:
    app = make_app([{"text": "one"}, {"text": "two"}], typed_ahead="first\nsecond\nhalf a tho")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot, lambda: len(app.query(UserMessage)) == 2 and not app.busy)
        assert [m.text for m in app.query(UserMessage)] == ["first", "second"]
        assert app.composer.text == "half a tho"


async def test_up_and_down_walk_the_history(make_app: MakeApp) -> None:
    app = make_app([{"text": "a"}, {"text": "b"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "first")
        await settle(pilot)
        await send(pilot, "second")
        await settle(pilot)
        await pilot.press(*"draft")
        await pilot.press("up")
        assert app.composer.text == "second"
        await pilot.press("up")
        assert app.composer.text == "first"
        await pilot.press("down", "down")
        assert app.composer.text == "draft"


async def test_at_completes_a_file_name_and_opens_the_file(
    make_app: MakeApp, project: Path
) -> None:
    (project / "src").mkdir()
    (project / "src" / "parser.py").write_text("def parse(): ...\n")
    (project / "README.md").write_text("# hi\n")
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"look at @pars")
        menu = app.composer.query_one(OptionList)
        await settle(pilot, lambda: menu.display and menu.option_count > 0)
        assert app.composer.suggestions[0].label == "src/parser.py"
        await pilot.press("tab")
        assert app.composer.text == "look at @src/parser.py "
        await settle(pilot, lambda: bool(app.session.kernel.state.windows))
        assert [w.path for w in app.session.kernel.state.windows] == ["src/parser.py"]


async def test_slash_completes_commands(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/mod")
        assert [s.label for s in app.composer.suggestions][:3] == [
            "/mode [build|plan]",
            "/model [provider] [model]",
            "/modelid",
        ]
        await pilot.press("tab")
        assert app.composer.text == "/mode "


async def test_bang_runs_the_users_own_command_and_shows_its_output(
    make_app: MakeApp, project: Path
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "!echo hello from bash; printf '\\033[31mred\\033[0m'")
        await settle(pilot)
        (row,) = app.query(ToolRow)
        assert row.ok and row.expanded
        body = str(row.query_one(".tool-body").render())
        assert "exit code 0" in body and "hello from bash" in body and "red" in body
        assert "\x1b" not in body and "shared with the model" in body
        (note,) = app.session.kernel.state.conversation.records
        assert isinstance(note, CoreUserMessage) and note.shell is not None
        assert (note.shell.command, note.shell.result, note.shell.ok) == (
            "echo hello from bash; printf '\\033[31mred\\033[0m'",
            "exit code 0\nhello from bash\nred",
            True,
        )
        assert note.content == shell_note(note.shell.command, note.shell.result)


async def test_a_long_command_shows_its_output_as_it_runs_and_keeps_it_when_stopped(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "!echo building step 1; sleep 600")
        await settle(pilot, lambda: bool(app.query(ToolRow)))
        (row,) = app.query(ToolRow)
        preview = row.query_one(".tool-preview")
        await settle(pilot, lambda: "building step 1" in str(preview.render()))
        assert row.ok is None  # still running
        await pilot.press("escape")
        await settle(pilot, lambda: row.ok is False)
        body = str(row.query_one(".tool-body").render())
        assert row.expanded and "interrupted after" in body and "building step 1" in body
        assert app.session.kernel.state.conversation.records == []  # nothing is shared


async def test_the_model_reads_the_command_output_with_the_next_message(
    make_app: MakeApp,
) -> None:
    app = make_app([{"text": "It printed 42."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "!echo 42")
        await settle(pilot)
        await send(pilot, "what did it print?")
        await settle(pilot)
        (request,) = app.session.kernel.agent.model.requests  # type: ignore[attr-defined]
        said = [m["content"] for m in request.messages if m["role"] == "user"]
        assert said == [shell_note("echo 42", "exit code 0\n42"), "what did it print?"]


async def test_output_of_a_command_run_during_a_turn_waits_for_the_turn_to_end(
    make_app: MakeApp,
) -> None:
    answered = asyncio.Event()  # the first answer stalls until the command has run
    app = make_app([{"text": "slow answer", "until": answered}, {"text": "next"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "go")
        await settle(pilot, lambda: app.busy and bool(app.query(AssistantMessage)))
        await send(pilot, "!echo during")
        await settle(pilot, lambda: any(r.ok for r in app.query(ToolRow)))
        conversation = app.session.kernel.agent.conversation
        assert [m["content"] for m in conversation.messages] == ["go"]  # the turn is untouched
        answered.set()
        await settle(pilot, lambda: not app.busy, limit_s=30)
        roles = [m["role"] for m in conversation.messages]
        assert roles == ["user", "assistant", "user"]
        note = conversation.records[-1]
        assert isinstance(note, CoreUserMessage) and note.shell is not None
        assert (note.shell.command, note.shell.result) == ("echo during", "exit code 0\nduring")


async def test_links_open_only_after_the_full_address_is_confirmed(make_app: MakeApp) -> None:
    app = make_app([{"text": "see [docs](https://example.test/a?b=c)"}])
    opened: list[str] = []
    app.open_url = lambda url, **kw: opened.append(url)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        markdown = app.query_one(AssistantMessage).query_one(Markdown)
        markdown.post_message(Markdown.LinkClicked(markdown, "https://example.test/a?b=c"))
        await settle(pilot, lambda: isinstance(app.screen, LinkConfirmScreen))
        shown = str(app.screen.query_one("#link-url").render())
        assert shown == "https://example.test/a?b=c" and opened == []
        await pilot.press("y")
        await pilot.pause()
        assert opened == ["https://example.test/a?b=c"]


async def test_scrolling_up_during_a_stream_is_not_undone(make_app: MakeApp) -> None:
    long_answer = "\n\n".join(f"paragraph {n}" for n in range(80))
    app = make_app([{"text": long_answer}, {"text": "more " * 50, "chunk_delay_s": 0.05}])
    async with app.run_test(size=(80, 24)) as pilot:
        await send(pilot, "long")
        await settle(pilot)
        chat = app.query_one(ChatView)
        await send(pilot, "more")
        await settle(pilot, lambda: len(app.query(AssistantMessage)) == 2)
        chat.focus()
        await pilot.press("pageup", "pageup")
        position = chat.scroll_y
        assert position < chat.max_scroll_y
        await settle(pilot)
        assert chat.scroll_y == position


async def test_a_command_typed_after_the_message_undo_put_back_runs_alone_not_sent(
    make_app: MakeApp, project: Path
) -> None:
    write = {"name": "write_file", "arguments": '{"path": "made.txt", "content": "x"}'}
    app = make_app([{"tool_calls": [write]}, {"text": "Made it."}])
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "make the file")
        await settle(pilot)
        await send(pilot, "/undo")
        await settle(pilot, lambda: app.composer.text == "make the file")
        assert not (project / "made.txt").exists()

        await pilot.press(*"/redo", "enter")  # typed after the message, as the notice says
        await settle(pilot)
        assert [m.text for m in app.query(UserMessage)] == []  # nothing went to the model
        assert app.composer.text == "make the file/redo"
        notices = "\n".join(n.message for n in app.query(Notice))
        assert "Not sent: /redo was typed after the text in the prompt" in notices

        await pilot.press("ctrl+u", *"/redo", "enter")
        await settle(pilot, lambda: (project / "made.txt").exists())
        assert [m.text for m in app.query(UserMessage)] == ["make the file"]
