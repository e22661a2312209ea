"""/decks and /run in the app: the project's decks listed with the files left out, and a deck
run directly (its row follows the run, then its output), stopped by Esc; a bad input or an
unknown deck is said, and nothing runs."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ui_harness import MakeApp, send, settle

from zizou.decks.display import output_text
from zizou.decks.spec import DeckSet
from zizou.providers.fake import ScriptedModel
from zizou.ui.app import ZizouApp
from zizou.ui.deck_commands import decks_listing
from zizou.ui.slash import completions
from zizou.ui.widgets.messages import Notice
from zizou.ui.widgets.tool_row import ToolRow

GREET = """---
description: Greets a person by name.
input: string
output:
  type: object
  properties:
    greeting: {type: string}
  required: [greeting]
tools: []
---
Greet the person you are given.
"""
PAIR = """---
description: Takes an object.
input:
  type: object
  properties:
    first: {type: string}
  required: [first]
output: string
tools: []
---
Answer.
"""
BAD = """---
description: Has a typo.
colour: blue
---
Nothing.
"""


def decks(project: Path, **files: str) -> Path:
    folder = project / ".zizou" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.deck.md").write_text(text)
    return folder


def returns(**output: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "return_output", "arguments": json.dumps(output)}]}


def said(app: ZizouApp) -> str:
    return "\n".join(n.message for n in app.query(Notice))


def model_of(app: ZizouApp) -> ScriptedModel:
    model = app.session.kernel.agent.model
    assert isinstance(model, ScriptedModel)
    return model


async def test_decks_lists_the_decks_and_the_files_left_out(
    make_app: MakeApp, project: Path
) -> None:
    decks(project, greet=GREET, bad=BAD)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/decks")
        await settle(pilot, lambda: "Decks (" in said(app))
        text = said(app)
        assert "greet · project · string → {greeting} · Greets a person by name." in text
        assert "explore · builtin" in text  # the built-in decks too
        assert "bad.deck.md:3: " in text and "colour" in text  # file:line: message
        assert "  greet" not in text.split("Left out")[1]


async def test_run_shows_the_output_and_the_row_done(make_app: MakeApp, project: Path) -> None:
    decks(project, greet=GREET)
    app = make_app([returns(greeting="Hello, Ada!")])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/run greet Ada")
        await settle(pilot, lambda: "greet returned" in said(app))
        [row] = app.query(ToolRow)
        assert (row.tool, row.summary, row.ok) == ("greet", 'deck · "Ada"', True)
        assert row._header().plain.startswith('◆ greet · deck · "Ada" · ')
        assert row._header().plain.endswith("s ✓ · 1 call")
        assert '"greeting": "Hello, Ada!"' in said(app)
        [request] = model_of(app).requests
        assert request.messages[-1] == {"role": "user", "content": "Ada"}
        assert not app.session.kernel.agent.conversation.messages  # not the main conversation
        assert app.opening.ready  # the session is released for the next message


async def test_run_shows_the_deck_going_on_its_row_and_esc_stops_it(
    make_app: MakeApp, project: Path
) -> None:
    decks(project, greet=GREET)
    hold = asyncio.Event()
    app = make_app([{"text": "thinking", "until": hold, **returns(greeting="late")}])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/run greet Ada")
        await settle(pilot, lambda: bool(model_of(app).requests))
        [row] = app.query(ToolRow)
        assert row.ok is None and row.has_class("-preview")  # "greet · model call 1"
        await send(pilot, "sent meanwhile")
        assert [item.text for item in app.queue.items] == ["sent meanwhile"]  # it waits
        await pilot.press("escape")
        await settle(pilot, lambda: "Stopped the run of greet" in said(app))
        assert row.ok is False and row.note == "interrupted"
        assert app.opening.ready and "greet returned" not in said(app)


async def test_run_with_an_input_that_is_not_json_runs_nothing(
    make_app: MakeApp, project: Path
) -> None:
    decks(project, pair=PAIR)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/run pair {first: Ada}")
        await settle(pilot, lambda: "not valid JSON" in said(app))
        assert 'such as {"first": "..."}' in said(app)
        assert not app.query(ToolRow) and not model_of(app).requests


async def test_run_of_an_unknown_deck_lists_the_known_ones(
    make_app: MakeApp, project: Path
) -> None:
    decks(project, greet=GREET)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/run nosuch")
        await settle(pilot, lambda: "No deck named 'nosuch'" in said(app))
        assert "explore, greet, review" in said(app)
        assert not app.query(ToolRow) and not model_of(app).requests


async def test_run_waits_for_the_turn(make_app: MakeApp, project: Path) -> None:
    decks(project, greet=GREET)
    hold = asyncio.Event()
    app = make_app([{"text": "working on it", "until": hold}])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "a long question")
        await settle(pilot, lambda: app.turns.running)
        await send(pilot, "/run greet Ada")
        await settle(pilot, lambda: "/run once it ends" in said(app))
        hold.set()
        await settle(pilot)
        assert not app.query(ToolRow)


def test_listing_without_decks_says_how_to_make_one() -> None:
    text, fix = decks_listing(DeckSet({}, [], []))
    assert text == "No decks here."
    assert "zizou decks new NAME" in fix and ".zizou/decks/" in fix


def test_both_commands_complete_with_their_help() -> None:
    assert completions("dec")[0].usage == "/decks"
    assert completions("ru")[0].usage == "/run DECK [INPUT]"


def test_output_is_text_or_indented_json() -> None:
    assert output_text("plain words") == "plain words"
    assert output_text({"a": [1]}) == '{\n  "a": [\n    1\n  ]\n}'


async def test_run_takes_a_deck_file_by_path_as_zizou_run_does(
    make_app: MakeApp, project: Path
) -> None:
    """`/run PATH INPUT`, the README's own example with `zizou run`: a deck file outside the
    project's decks folder is loaded and run."""
    (project / "examples").mkdir()
    (project / "examples" / "greet.deck.md").write_text(GREET)
    app = make_app([returns(greeting="Hello, Ada!")])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/run examples/greet.deck.md Ada")
        await settle(pilot, lambda: "greet returned" in said(app) or "No deck" in said(app))
        assert '"greeting": "Hello, Ada!"' in said(app)
        [request] = model_of(app).requests
        assert request.messages[-1] == {"role": "user", "content": "Ada"}
