"""A deck's call in the app: a ◆ row that holds the calls of the deck's run, the runs under it
nested under their calls, a suspense message at once, the decks that ask in the approval
dialog, and the run's transcript on `t`."""

from __future__ import annotations

import asyncio
import html
import json
import re
from pathlib import Path
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.contracts.events import DeckSuspense, Nested, ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import PermissionRequest
from zizou.decks.display import INTO
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.screens.approval import ApprovalScreen, header
from zizou.ui.screens.deck_transcript import DeckTranscriptScreen
from zizou.ui.widgets.deck_row import QUIET_S, SUB_ROWS, DeckRow, DeckTree
from zizou.ui.widgets.status_bar import StatusBar

TEXT = {"type": "object", "properties": {"input": {"type": "string"}}, "required": ["input"]}
SAID = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}


def deck(project: Path, name: str, **front: Any) -> None:
    folder = project / ".zizou" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"description": f"The {name} deck.", "input": "string", "output": "string", **front}
    front.setdefault("tools", [])
    (folder / f"{name}.deck.md").write_text(f"---\n{json.dumps(front)}\n---\nDo it.\n")


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": tool, "arguments": json.dumps(arguments)}]}


def model_of(app: ZizouApp) -> ScriptedModel:
    model = app.session.kernel.agent.model
    assert isinstance(model, ScriptedModel)
    return model


def deck_row(app: ZizouApp) -> DeckRow:
    [row] = app.query(DeckRow)
    return row


def tree_text(row: DeckRow) -> list[str]:
    return [line.plain for line in row.calls.lines()]


def screen_text(app: ZizouApp) -> str:
    """The screen as a person reads it: the screenshot's text, line by line."""
    svg = app.export_screenshot()
    lines = re.findall(r"<text [^>]*>(.*?)</text>", svg)
    return html.unescape("".join(lines)).replace("\xa0", " ")


async def test_a_deck_call_shows_its_run_calls_under_a_diamond_row(
    make_app: MakeApp, project: Path
) -> None:
    deck(project, "greet", tools=["read_file"])
    (project / "notes.txt").write_text("Ada likes tea.\n")
    replies = [
        call("greet", input="Ada"),  # the main agent
        call("read_file", path="notes.txt"),  # greet's run
        {"text": "Hello, Ada!"},
        {"text": "greet said hello"},  # the main agent again
    ]
    app = make_app(replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "greet Ada")
        await settle(pilot)
        row = deck_row(app)
        header = row._header().plain
        assert header.startswith('◆ greet · deck · "Ada" · ') and header.endswith("✓ · 1 call")
        [line] = tree_text(row)
        assert line.startswith("■ read_file · notes.txt · ") and line.endswith("✓")
        assert not row.has_class("-expanded")
        row.focus()
        await pilot.press("enter")  # expands into the run's calls
        await pilot.pause()
        assert row.has_class("-expanded")
        assert "■ read_file · notes.txt" in screen_text(app)

        await pilot.press("t")
        await settle(pilot, lambda: isinstance(app.screen, DeckTranscriptScreen))
        shown = app.screen.text  # type: ignore[attr-defined]
        assert "greet · " in shown and "returned" in shown
        assert "user:\nAda" in shown
        assert '→ read_file {\n      "path": "notes.txt"\n    }' in shown
        assert "read_file ✓:" in shown and "Ada likes tea." in shown
        assert "assistant:\nHello, Ada!" in shown
        await pilot.press("escape")
        await settle(pilot, lambda: not isinstance(app.screen, DeckTranscriptScreen))


async def test_three_decks_deep_the_runs_nest_under_their_calls(
    make_app: MakeApp, project: Path
) -> None:
    deck(project, "outer", actions=[{"path": "middle.deck.md"}])
    deck(project, "middle", actions=[{"path": "inner.deck.md"}])
    deck(project, "inner", tools=["read_file"])
    (project / "notes.txt").write_text("deep\n")
    replies = [
        call("outer", input="go"),
        call("middle", input="go on"),
        call("inner", input="and on"),
        call("read_file", path="notes.txt"),
        {"text": "inner done"},
        {"text": "middle done"},
        {"text": "outer done"},
        {"text": "all done"},
    ]
    app = make_app(replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "go deep")
        await settle(pilot)
        row = deck_row(app)
        assert row.ok is True
        lines = tree_text(row)
        assert [line.split(" · ")[0] for line in lines] == [
            "◆ middle",
            "  ◆ inner",
            "    ■ read_file",
        ]
        assert all(line.endswith("✓") for line in lines)
        assert len(row.calls.run_ids()) == 3  # outer's, middle's and inner's runs


async def test_a_suspense_message_shows_in_the_row_at_once(
    make_app: MakeApp, project: Path
) -> None:
    deck(
        project,
        "outer",
        actions=[{"path": "slow.deck.md"}],
        handlers={"on_suspense": "soothe.deck.md"},
        suspense_delay_ms=100,
    )
    deck(project, "slow")
    deck(project, "soothe", input={"type": "object"}, output=SAID)
    hold = asyncio.Event()
    replies = [
        call("outer", input="go"),
        call("slow", input="slowly"),
        {"text": "slow done", "until": hold},  # slow's run waits here
        call("return_output", message="still looking things up"),  # the handler
        {"text": "outer done"},
        {"text": "all done"},
    ]
    app = make_app(replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "go slowly")
        await settle(pilot, lambda: bool(app.query(DeckRow)) and deck_row(app).suspended)
        row = deck_row(app)
        preview = str(row.query_one(".tool-preview").render())
        assert f"outer{INTO}slow: still looking things up" in preview
        assert "still looking things up" in app.query_one(StatusBar).state
        hold.set()
        await settle(pilot)
        assert row.ok is True


async def test_the_approval_dialog_names_the_decks_that_ask(
    make_app: MakeApp, project: Path
) -> None:
    deck(project, "greet", actions=[{"path": "lookup.deck.md"}])
    deck(project, "lookup", tools=["run_bash"])
    replies = [
        call("greet", input="Ada"),
        call("lookup", input="Ada"),
        call("run_bash", command="pytest"),
        {"text": "not run"},
        {"text": "no lookup"},
        {"text": "nothing"},
    ]
    app = make_app(replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "greet Ada")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert f"greet{INTO}lookup wants to run: pytest" in screen_text(app)
        lines = tree_text(deck_row(app))
        assert lines[-1].startswith("  ■ run_bash · pytest · waiting for approval")
        await pilot.press("escape")
        await settle(pilot)


def test_the_header_is_the_title_for_the_main_agent() -> None:
    asked = PermissionRequest("c1", "write_file", "src/a.py", kind="write")
    assert header(asked, "Allow write_file?") == "Allow write_file?"
    chained = PermissionRequest("c1", "write_file", "src/a.py", kind="write", chain=("a", "b"))
    assert header(chained, "Allow write_file?") == f"a{INTO}b wants to use write_file: src/a.py"


def test_a_tree_keeps_its_latest_calls_and_counts_the_rest() -> None:
    tree = DeckTree("greet")
    for number in range(SUB_ROWS + 5):
        started = ToolCallStarted(f"c{number}", "read_file", "{}", f"f{number}.txt")
        tree.add(Nested("main", ("greet",), started, "run-1"))
        tree.add(
            Nested(
                "main",
                ("greet",),
                ToolCallFinished(f"c{number}", "read_file", True, "", 0.1),
                "run-1",
            )
        )
    lines = [line.plain for line in tree.lines()]
    assert lines[0] == "⋯ 5 earlier calls" and len(lines) == SUB_ROWS + 1
    assert lines[1].startswith("■ read_file · f5.txt")
    suspense = DeckSuspense(("greet",), "greeting", "almost there", 900)
    tree.add(Nested("main", ("greet",), suspense, "run-1"))
    assert tree.lines()[0].plain == "almost there"


async def test_a_quiet_run_says_it_is_still_working(make_app: MakeApp, project: Path) -> None:
    deck(project, "greet")
    hold = asyncio.Event()
    replies = [call("greet", input="Ada"), {"text": "Hello", "until": hold}, {"text": "done"}]
    app = make_app(replies)
    async with app.run_test(size=(120, 40)) as pilot:
        await send(pilot, "greet Ada")
        await settle(pilot, lambda: len(model_of(app).requests) == 2)
        row = deck_row(app)
        row.heard -= QUIET_S + 2  # as if the run had said nothing for 12 s
        row._refresh_header()
        preview = str(row.query_one(".tool-preview").render())
        assert preview == "still working: greet (12 s)"
        hold.set()
        await settle(pilot)
        assert row.ok is True and not row.has_class("-preview")
