"""A turn on screen: streamed Markdown, tool rows, diffs, retries and errors."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

from textual.widgets import Static
from ui_harness import MakeApp, send, settle

from zizou.contracts.events import Retrying
from zizou.contracts.messages import ShellRun, from_wire
from zizou.contracts.messages import UserMessage as CoreUserMessage
from zizou.contracts.protocols import Model, ModelEvent, ModelReply, ModelRequest, TextPiece
from zizou.ui.shell import shell_note
from zizou.ui.widgets.diff_view import DiffView
from zizou.ui.widgets.messages import AssistantMessage, Notice, RetryNotice, UserMessage
from zizou.ui.widgets.tool_row import ToolRow


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"name": name, "arguments": json.dumps(arguments)}


def notices(app: object) -> list[str]:
    return [n.message for n in app.query(Notice)]  # type: ignore[attr-defined]


async def test_a_streamed_answer_is_markdown_with_markup_and_escapes_left_alone(
    make_app: MakeApp,
) -> None:
    answer = "Hello **world** [/foo] [link=https://x.test]y[/link] \x1b[31mred\x1b[0m done"
    app = make_app([{"text": answer, "pieces": 9}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        assert [m.text for m in app.query(UserMessage)] == ["hi"]
        (message,) = app.query(AssistantMessage)
        assert message.source == "Hello **world** [/foo] [link=https://x.test]y[/link] red done"
        shown = message.markdown.source
        assert "[/foo]" in shown and "\x1b" not in shown


async def test_tool_calls_become_rows_that_expand_to_arguments_and_output(
    make_app: MakeApp, project: Path
) -> None:
    (project / "notes.txt").write_text("alpha\nbeta\n")
    app = make_app(
        [
            {"tool_calls": [call("read_file", path="notes.txt"), call("glob", pattern="*.nope")]},
            {"text": "Read it."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "read notes")
        await settle(pilot)
        rows = list(app.query(ToolRow))
        assert [(r.tool, r.summary, r.ok) for r in rows] == [
            ("read_file", "notes.txt", True),
            ("glob", "*.nope", True),
        ]
        header = str(rows[0].query_one(".tool-header").render())
        assert header.startswith("■ read_file · notes.txt · ") and header.endswith("✓")
        rows[0].focus()
        await pilot.press("enter")
        body = str(rows[0].query_one(".tool-body").render())
        assert '"path": "notes.txt"' in body and "alpha" in body


async def test_edits_and_writes_show_their_diff(make_app: MakeApp, project: Path) -> None:
    (project / "app.py").write_text("x = 1\n")
    app = make_app(
        [
            {"tool_calls": [call("read_file", path="app.py")]},
            {
                "tool_calls": [
                    call("edit_file", path="app.py", old_string="x = 1", new_string="x = 2")
                ]
            },
            {"tool_calls": [call("write_file", path="new.py", content="print('hi')\n")]},
            {"text": "Edited."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "edit it")
        await settle(pilot)
        diffs = [d.diff for d in app.query(DiffView)]
        assert len(diffs) == 2
        assert "-x = 1" in diffs[0] and "+x = 2" in diffs[0]
        assert "+print('hi')" in diffs[1]
        assert (project / "app.py").read_text() == "x = 2\n"


async def test_a_change_that_breaks_the_syntax_shows_its_new_problem_under_the_diff(
    make_app: MakeApp, project: Path
) -> None:
    (project / "app.py").write_text("def f(x):\n    return x\n")
    app = make_app(
        [
            {"tool_calls": [call("read_file", path="app.py")]},
            {
                "tool_calls": [
                    call("edit_file", path="app.py", old_string="return x", new_string="return (x")
                ]
            },
            {"text": "Edited."},
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "edit it")
        await settle(pilot)
        row = next(r for r in app.query(ToolRow) if r.tool == "edit_file")
        assert row.ok  # applied: not shown as a failure
        children = list(row.children)
        [diff] = [c for c in children if isinstance(c, DiffView)]
        [checks] = row.query(".tool-checks")
        assert children.index(checks) > children.index(diff)
        shown = str(checks.render())
        assert shown.startswith("New syntax problems after this change (it was applied):")
        assert "- line 2, column 5: cannot parse" in shown


class RetryThenAnswer(Model):
    """A model that streams a partial answer, retries, then answers."""

    id = "retrying"

    def __init__(self) -> None:
        self.calls = 0
        self.go_on = asyncio.Event()  # the next attempt starts once the test has looked

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.calls += 1
        yield TextPiece("partial text that is thrown away")
        # a countdown no slow machine runs out before the test reads it
        yield Retrying(2, 600.0, "rate limited by test, retrying in 600 s (attempt 2 of 5)")
        await self.go_on.wait()
        yield TextPiece("the real answer")
        yield ModelReply("the real answer")


async def test_a_retry_drops_the_partial_text_counts_down_once_and_goes(
    make_app: MakeApp,
) -> None:
    app = make_app()
    model = RetryThenAnswer()
    app.session.kernel.agent.model = model
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot, lambda: bool(app.query(RetryNotice)))
        (retry,) = app.query(RetryNotice)
        text = str(retry.render())
        assert re.fullmatch(r"↻ retrying in \d+ s \(attempt 2 of 5\): rate limited by test", text)
        assert not app.query(AssistantMessage)  # the failed attempt's text is gone
        model.go_on.set()
        await settle(pilot)
        assert [m.source for m in app.query(AssistantMessage)] == ["the real answer"]
        assert not app.query(RetryNotice)  # the answer came: the countdown line went


async def test_a_provider_error_is_shown_with_its_fix(make_app: MakeApp) -> None:
    app = make_app([{"status": 401, "error": "Incorrect API key: set OPENAI_API_KEY"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await send(pilot, "hi")
        await settle(pilot)
        errors = [n for n in app.query(Notice) if n.has_class("-error")]
        assert len(errors) == 1
        text = str(errors[0].render())
        assert "Incorrect API key" in text and "/model" in text
        assert not app.busy


async def test_the_sidebar_shows_session_model_tokens_and_pins(
    make_app: MakeApp, project: Path
) -> None:
    (project / "a.py").write_text("print(1)\n")
    app = make_app([{"text": "ok", "prompt_tokens": 1200, "completion_tokens": 34}])
    async with app.run_test(size=(140, 36)) as pilot:
        await send(pilot, "/add a.py")
        await send(pilot, "hi")
        await settle(pilot)
        sidebar = app.query_one("#sidebar")
        assert sidebar.display
        text = " ".join(str(part.render()) for part in sidebar.query(Static))
        for expected in ("20250101-120000-abc123", "scripted", "1.2k in · 34 out", "a.py"):
            assert expected in text
        await pilot.press("ctrl+b")
        assert not sidebar.display


async def test_a_resumed_conversation_is_shown_as_it_went(make_app: MakeApp) -> None:
    app = make_app()
    calls = [{"id": "c1", "type": "function", "function": {"name": "glob", "arguments": "{}"}}]
    run = ShellRun(command="git status", result="exit code 0\nclean", ok=True)
    app.session.kernel.state.conversation.records.extend(
        [
            *map(
                from_wire,
                [
                    {"role": "user", "content": "earlier question"},
                    {"role": "assistant", "content": None, "tool_calls": calls},
                    {"role": "tool", "tool_call_id": "c1", "content": "a.py"},
                    {"role": "assistant", "content": "earlier answer"},
                ],
            ),
            CoreUserMessage(content=shell_note(run.command, run.result), shell=run),
        ]
    )
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)  # the history is read in a thread before the session is ready
        assert [m.text for m in app.query(UserMessage)] == ["earlier question"]
        assert [r.tool for r in app.query(ToolRow)] == ["glob", "$"]
        assert "clean" in app.query(ToolRow)[-1].output
        assert [m.source for m in app.query(AssistantMessage)] == ["earlier answer"]
        assert "Resumed session" in notices(app)[-1]
