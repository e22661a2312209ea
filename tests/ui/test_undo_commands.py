"""/undo, /redo and /rewind in the app: a turn's files are put back byte for byte (a CRLF file
edited, one written, one deleted), the chat shows the conversation without the turn and its
message waits in the prompt; /redo does it again; a file changed outside zizou asks first, and
`n` changes nothing; /rewind goes back to before the turn picked."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from ui_harness import MakeApp, send, settle

from zizou.agent.permissions import Rules
from zizou.checkpoints import (
    CHECKPOINTS_DIR,
    Checkpoints,
    FileOutcome,
    FilePlan,
    TurnInfo,
    TurnPreview,
    UndoRefused,
)
from zizou.contracts.conversation import Conversation
from zizou.sessions import SessionStore
from zizou.sessions.records import TurnRecord, UnkeptPath
from zizou.ui.app import ZizouApp
from zizou.ui.resumed import session_records
from zizou.ui.screens.approval import ApprovalScreen
from zizou.ui.screens.confirm import ConfirmScreen
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.session import UiSession
from zizou.ui.undo_commands import DONE, dialog_text, files_done, question, turn_entry
from zizou.ui.widgets.messages import Notice, UserMessage
from zizou.ui.widgets.tool_row import ToolRow

CRLF = b"first line\r\nsecond line\r\n"
PICTURE = bytes(range(256)) * 4
EDITS = Rules(allowed_tools=frozenset({"delete_file"}))  # writes in the project do not ask


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def said(app: ZizouApp) -> str:
    return "\n".join(n.message for n in app.query(Notice))


def asked(app: ZizouApp) -> list[str]:
    return [m.text for m in app.query(UserMessage)]


def three_changes() -> list[dict[str, Any]]:
    return [
        call("read_file", path="notes.txt"),  # edit_file edits what the model has read
        call("edit_file", path="notes.txt", old_string="second line", new_string="SECOND LINE"),
        call("write_file", path="src/made.py", content="print('made')\n"),
        call("delete_file", path="picture.bin"),
        {"text": "Changed the three files."},
    ]


def assert_before(project: Path) -> None:
    assert (project / "notes.txt").read_bytes() == CRLF
    assert (project / "picture.bin").read_bytes() == PICTURE
    assert not (project / "src" / "made.py").exists()


def assert_after(project: Path) -> None:
    assert (project / "notes.txt").read_bytes() == b"first line\r\nSECOND LINE\r\n"
    assert (project / "src" / "made.py").read_text() == "print('made')\n"
    assert not (project / "picture.bin").exists()


async def test_undo_puts_the_files_back_and_the_message_in_the_prompt_and_redo_again(
    make_app: MakeApp, project: Path
) -> None:
    (project / "notes.txt").write_bytes(CRLF)
    (project / "picture.bin").write_bytes(PICTURE)
    app = make_app([{"text": "Hello."}, *three_changes()], rules=EDITS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "say hello")
        await settle(pilot)
        await send(pilot, "change the three files")
        await settle(pilot)
        assert_after(project)
        assert asked(app) == ["say hello", "change the three files"]

        await send(pilot, "/undo")
        await settle(pilot, lambda: "Undid turn" in said(app))
        assert_before(project)
        assert asked(app) == ["say hello"]  # the chat, shown afresh, ends before the turn
        assert not app.query(ToolRow)  # the turn's calls are gone with it
        assert app.composer.text == "change the three files"
        assert "restored notes.txt; deleted src/made.py; brought back picture.bin" in said(app)
        messages = app.session.kernel.agent.conversation.messages
        assert [m["content"] for m in messages] == ["say hello", "Hello."]

        app.composer.set_text("")  # as /redo is typed in the prompt box
        await send(pilot, "/redo")
        await settle(pilot, lambda: "Redid turn" in said(app))
        assert_after(project)
        assert asked(app) == ["say hello", "change the three files"]
        assert app.composer.text == "" and len(app.query(ToolRow)) == 4
        assert len(app.session.kernel.agent.conversation.messages) > 2


async def test_redo_empties_the_prompt_the_undo_filled(make_app: MakeApp, project: Path) -> None:
    app = make_app([call("write_file", path="a.txt", content="a\n"), {"text": "ok"}], rules=EDITS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "write a")
        await settle(pilot)
        await app.commands.run("undo", [])  # from the palette: the prompt is not emptied first
        await settle(pilot)
        assert app.composer.text == "write a" and not (project / "a.txt").exists()
        await app.commands.run("redo", [])
        await settle(pilot)
        assert app.composer.text == "" and (project / "a.txt").read_text() == "a\n"


async def test_a_file_changed_outside_zizou_asks_n_keeps_it_and_y_overwrites_it(
    make_app: MakeApp, project: Path
) -> None:
    (project / "notes.txt").write_bytes(CRLF)
    script = [call("write_file", path="notes.txt", content="by zizou\n"), {"text": "Written."}]
    app = make_app(script, rules=EDITS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "rewrite the notes")
        await settle(pilot)
        (project / "notes.txt").write_bytes(b"by hand\n")

        await send(pilot, "/undo")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.question == "Undo anyway? 1 file changed outside zizou since the turn."
        assert "notes.txt\n      ⚠ changed outside zizou since the turn" in dialog.detail
        await pilot.press("n")
        await settle(pilot, lambda: "Nothing was undone" in said(app))
        assert (project / "notes.txt").read_bytes() == b"by hand\n"
        assert asked(app) == ["rewrite the notes"] and app.composer.text == ""

        await send(pilot, "/undo")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, lambda: "Undid turn" in said(app))
        assert (project / "notes.txt").read_bytes() == CRLF
        assert "(it had changed outside zizou)" in said(app)
        assert asked(app) == [] and app.composer.text == "rewrite the notes"

        await send(pilot, "/redo")  # brings back the version made by hand
        await settle(pilot, lambda: "Redid turn" in said(app))
        assert (project / "notes.txt").read_bytes() == b"by hand\n"


async def test_rewind_to_the_first_of_three_turns(make_app: MakeApp, project: Path) -> None:
    script: list[dict[str, Any]] = []
    for n in (1, 2, 3):
        script += [call("write_file", path=f"f{n}.txt", content=f"{n}\n"), {"text": f"did {n}"}]
    script[2:2] = [call("run_bash", command="touch two.txt")]  # the second turn runs a command
    app = make_app(script, rules=Rules(bash_prefixes=("touch",)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        for n in (1, 2, 3):
            await send(pilot, f"write file {n}")
            await settle(pilot)
        await send(pilot, "/rewind")
        await settle(pilot, lambda: isinstance(app.screen, PickerScreen))
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert [e.label for e in picker.entries] == [f"write file {n}" for n in (3, 2, 1)]
        assert picker.entries[0].note == "turn 3 · 1 file: f3.txt"
        assert picker.entries[1].note == "turn 2 · 2 files: two.txt, f2.txt · ran 1 command"
        await pilot.press("down", "down", "enter")
        await settle(pilot, lambda: "Rewound 3 turns" in said(app))
        assert not any((project / f"f{n}.txt").exists() for n in (1, 2, 3))
        assert not (project / "two.txt").exists()  # what the command made is undone too
        assert asked(app) == [] and app.composer.text == "write file 1"
        assert app.session.kernel.agent.conversation.messages == []
        assert "deleted f3.txt, two.txt, f2.txt, f1.txt." in said(app)
        assert "outside the project's files (other directories, databases" in said(app)
        await send(pilot, "/redo")  # one turn at a time: the earliest first
        await settle(pilot, lambda: "Redid turn" in said(app))
        assert (project / "f1.txt").exists() and not (project / "f2.txt").exists()
        assert asked(app) == ["write file 1"]


async def test_what_stands_in_the_way_is_said(make_app: MakeApp, project: Path) -> None:
    script = [
        call("write_file", path="kept.txt", content="new\n"),
        call("write_file", path="made.txt", content="made\n"),
        {"text": "ok"},
        call("delete_file", path="kept.txt"),
    ]
    (project / "kept.txt").write_text("old\n")
    app = make_app(script, rules=EDITS)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "/undo")
        await settle(pilot, lambda: "nothing to undo" in said(app))
        assert "There is nothing to undo: the conversation has no turns." in said(app)
        await send(pilot, "/redo")
        await settle(pilot, lambda: "nothing to redo" in said(app))
        await send(pilot, "/rewind")
        await settle(pilot, lambda: "There is no turn to rewind" in said(app))
        await send(pilot, "/undo 2")
        await settle(pilot, lambda: "/undo takes no arguments" in said(app))

        await send(pilot, "write two files")
        await settle(pilot)
        shutil.rmtree(project / CHECKPOINTS_DIR / "blobs")  # kept.txt's bytes before are gone
        await send(pilot, "/undo")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await settle(pilot, lambda: "Not put back" in said(app))
        assert "Not put back — kept.txt: its saved copy is gone" in said(app)
        assert (project / "kept.txt").read_text() == "new\n" and not (project / "made.txt").exists()

        app.session.kernel.agent.runner.gates.book.replace(Rules())  # the delete asks, waits
        await send(pilot, "delete it")
        await settle(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        await app.commands.run("undo", [])
        assert "A turn is running: /undo once it ends (Esc stops it)." in said(app)


def test_the_words_for_the_files() -> None:
    outcomes = (
        FileOutcome("a.py", "restore", True),
        FileOutcome("b.py", "delete", True),
        FileOutcome("a.py", "restore", True, "it had changed outside zizou; overwritten"),
        FileOutcome("c.py", "recreate", False, "its saved copy is gone"),
    )
    assert (
        files_done(outcomes, DONE) == "restored a.py (it had changed outside zizou); deleted b.py"
    )
    assert files_done((), DONE) == "it changed no files"
    info = TurnInfo(4, "fix   the\nbug", ("a.py", "b.py"), ("pytest",))
    entry = turn_entry(info)
    assert (entry.value, entry.label) == ("4", "fix the bug")
    assert entry.note == "turn 5 · 2 files: a.py, b.py · ran 1 command"  # counted from 1


def test_the_dialog_names_each_file_and_the_commands() -> None:
    plans = (
        FilePlan("a.py", "restore", outside=True),
        FilePlan("b.py", "recreate", problem="its saved copy is gone"),
        FilePlan("c.py", "delete"),
    )
    ignored = UnkeptPath(path="build.log", why="ignored", change="deleted")
    preview = TurnPreview(1, "do it", plans, ("make", "!deploy"), ("!deploy (your own command)",))
    refused = UndoRefused([replace(preview, unkept=(ignored,))])
    assert question("undo", refused) == (
        "Undo anyway? 1 file changed outside zizou since the turn and 1 file cannot be put back."
    )
    text = dialog_text("undo", refused)
    assert "  restore     a.py\n      ⚠ changed outside zizou since the turn (kept" in text
    assert "  bring back  b.py\n      ⚠ cannot be put back, left as it is: its saved" in text
    assert "  delete      c.py\n" in text and "ran: make; !deploy" in text
    assert "Not restored, no snapshot keeps them: build.log (ignored, deleted)." in text
    assert "Commands not undone (their changes stay): !deploy (your own command)." in text
    assert "outside the project's files (other directories, databases, services)" in text
    assert "changed since the undo: overwritten\n" in dialog_text("redo", refused)


def test_the_session_file_shows_an_undone_turn_gone_and_a_redone_one_back(project: Path) -> None:
    """What the chat and `zizou -c` show: the undone turn leaves with its turn marks (its usage
    is not counted), and comes back with them when redone."""
    writer = SessionStore(project).create("s1", "m")
    conversation = Conversation(on_append=writer.append_message)
    checkpoints = Checkpoints(project, "s1", conversation, writer)
    for text in ("one", "two"):
        writer.begin_turn(text, conversation.messages)
        checkpoints.begin_turn(text, conversation.messages)
        conversation.add_user(text)
        conversation.add_assistant(f"did {text}")
        writer.write(
            TurnRecord(event="finished", ts="t", reason="done", usage={"output_tokens": 1})
        )
    session = cast(
        UiSession,
        SimpleNamespace(
            root=project,
            kernel=SimpleNamespace(
                session_id="s1", state=SimpleNamespace(conversation=conversation)
            ),
        ),
    )

    def kinds() -> list[str]:
        shown = session_records(session)
        return [r.event if isinstance(r, TurnRecord) else r.content for r in shown]

    whole = ["started", "one", "did one", "finished", "started", "two", "did two", "finished"]
    assert kinds() == whole
    checkpoints.undo()
    assert kinds() == whole[:4]
    checkpoints.redo()
    assert kinds() == whole
    writer.close()


async def test_without_a_layer_undo_asks_naming_each_file_a_command_may_have_changed(
    make_app: MakeApp, project: Path
) -> None:
    """Unsandboxed, a command's changes are seen in snapshots, which cannot tell them from the
    user's: /undo names each file and changes nothing unless told to."""
    script = [call("run_bash", command="echo made > made.txt"), {"text": "Made it."}]
    app = make_app(script, rules=Rules(yes=True), options={"sandbox": "off"})
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await send(pilot, "make a file")
        await settle(pilot)
        assert (project / "made.txt").exists()
        await send(pilot, "/undo")
        await settle(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        assert dialog.question == "Undo anyway? 1 file maybe not changed by its commands."
        assert "made.txt\n      ⚠ it changed while a command ran, but maybe not by" in dialog.detail
        await pilot.press("n")
        await settle(pilot, lambda: "Nothing was undone" in said(app))
        assert (project / "made.txt").exists()
