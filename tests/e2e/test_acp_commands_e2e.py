"""The slash commands of `zizou acp` through the real process: the editor is told which there
are (zizou's own and the project's command files) after session/new and session/load; `/undo`
puts back the files of the last turn; a project command sends its body; `/compact` summarises;
`/decks` lists the decks and `/run` runs one; `zizou undo` and `zizou sessions list` work on
a session an editor made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from acp import text_block
from acp_harness import RecordingClient, new_session, zizou_acp
from conftest import run_cli
from loopback import LoopbackServer
from waiting import until

REVIEW = """\
---
description: review a file with care
argument-hint: FILE
---
Review $ARGUMENTS with care, line by line.
"""


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def user_texts(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "user"]


async def test_the_editor_is_told_the_commands_after_new_and_load(
    project: Path, zizou_home: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    with LoopbackServer([{"text": "hello"}]) as srv:
        client = RecordingClient()
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            await until(lambda: client.of_kind("available_commands_update"), "the commands")
            await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
        loaded = RecordingClient()
        async with zizou_acp(loaded, srv.base_url, zizou_home, project) as (conn, _):
            await conn.initialize(protocol_version=1)
            await conn.load_session(cwd=str(project), session_id=session.session_id, mcp_servers=[])
            [told_on_load] = loaded.of_kind("available_commands_update")
    [told] = client.of_kind("available_commands_update")
    assert told == told_on_load
    offered = {c["name"]: c for c in told["availableCommands"]}
    assert {"compact", "undo", "redo", "init", "decks", "run"} <= set(offered)
    assert offered["review"]["description"] == "review a file with care"
    assert offered["review"]["input"] == {"hint": "FILE"}
    assert offered["compact"]["input"] == {"hint": "[instructions]"}


async def test_undo_puts_the_file_back_and_the_turn_leaves_the_conversation(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("old line\n")
    script = [
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", old_string="old line", new_string="new line"),
        {"text": "edited"},
        {"text": "fresh start", "match": "after the undo"},
    ]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("change the notes")])
            assert (project / "notes.txt").read_text() == "new line\n"
            undone = await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
            said = client.text()
            await conn.prompt(session_id=sid, prompt=[text_block("after the undo")])
        last = srv.chat_requests[-1]
    assert undone.stop_reason == "end_turn"
    assert (project / "notes.txt").read_text() == "old line\n"
    assert "Undid turn 'change the notes': restored notes.txt." in said
    assert user_texts(last) == ["after the undo"]


async def test_a_project_command_sends_its_body_with_the_arguments(
    project: Path, zizou_home: Path
) -> None:
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(REVIEW)
    client = RecordingClient()
    with LoopbackServer([{"text": "reviewed"}]) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            answer = await conn.prompt(
                session_id=session.session_id, prompt=[text_block("/review main.py")]
            )
        [request] = srv.chat_requests
    assert answer.stop_reason == "end_turn" and client.text() == "reviewed"
    assert user_texts(request)[-1] == "Review main.py with care, line by line."


async def test_compact_summarises_and_decks_lists_the_decks(
    project: Path, zizou_home: Path
) -> None:
    script = [
        {"text": "the answer is 42", "match": "question"},
        {"text": "SUMMARY: the user asked; the answer was 42", "match": "keep the numbers"},
        {"text": "still 42", "match": "and now"},
    ]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("a question")])
            compacted = await conn.prompt(
                session_id=sid, prompt=[text_block("/compact keep the numbers")]
            )
            await conn.prompt(session_id=sid, prompt=[text_block("/decks")])
            await conn.prompt(session_id=sid, prompt=[text_block("and now?")])
        last = srv.chat_requests[-1]
    said = client.text()
    assert compacted.stop_reason == "end_turn"
    assert "Compacted" in said and "SUMMARY: the user asked; the answer was 42" in said
    assert "Decks (" in said or "No decks here." in said
    sent = json.dumps([m for m in last["messages"] if m["role"] != "system"])
    assert "SUMMARY: the user asked" in sent and "a question" not in sent


GREETER = """\
---
description: Greets the person named in the input.
---
Greet the person named in the input, in one sentence.
"""


async def test_run_runs_a_deck_and_decks_lists_it(project: Path, zizou_home: Path) -> None:
    decks = project / ".zizou" / "decks"
    decks.mkdir(parents=True)
    (decks / "greeter.deck.md").write_text(GREETER)
    script = [{"text": "Hello, Ada!", "match": "You are the deck greeter,"}]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            sid = session.session_id
            await conn.prompt(session_id=sid, prompt=[text_block("/decks")])
            listed = client.text()
            ran = await conn.prompt(session_id=sid, prompt=[text_block("/run greeter Ada")])
        [request] = srv.chat_requests
    assert "greeter · string → string · Greets the person named in the input." in listed
    assert ran.stop_reason == "end_turn"
    assert client.text().endswith("greeter returned:\nHello, Ada!")
    assert "Ada" in json.dumps(request["messages"])


async def test_zizou_undo_and_sessions_list_work_on_an_editors_session(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("old line\n")
    script = [
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", old_string="old line", new_string="new line"),
        {"text": "edited"},
    ]
    with LoopbackServer(script) as srv:
        async with zizou_acp(RecordingClient(), srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            await conn.prompt(session_id=session.session_id, prompt=[text_block("edit notes")])
    listed = run_cli(["sessions", "list"], project, zizou_home)
    undone = run_cli(["undo"], project, zizou_home)
    assert session.session_id in listed.stdout, listed.stderr
    assert undone.code == 0, undone.stderr
    assert (project / "notes.txt").read_text() == "old line\n"
