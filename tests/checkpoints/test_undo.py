"""Undo, redo and rewind on real files: byte for byte (binary, CRLF), created files deleted,
deleted ones brought back with their mode, a file changed outside zizou refused unless forced,
and every step kept in the session file so a reopened session sees it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from checkpoint_session import Session

from zizou.checkpoints import Checkpoints, UndoError, UndoRefused
from zizou.checkpoints.blobs import BLOBS_DIR
from zizou.checkpoints.history import FileChange
from zizou.checkpoints.plans import plan_file
from zizou.confined import open_handle
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import Compacted
from zizou.contracts.messages import ShellRun

BINARY = bytes(range(256)) * 4
CRLF = b"one\r\ntwo\r\nthree\r\n"
SCRIPT = b"#!/bin/sh\necho hi\n"


def read(root: Path, rel: str) -> bytes:
    return (root / rel).read_bytes()


def kinds(session: Session) -> list[str]:
    text = session.store.path(session.id).read_text()
    return [json.loads(line)["kind"] for line in text.splitlines()]


def from_the_file(session: Session) -> Checkpoints:
    """The session as its file holds it now (read only: its writer stays the session's)."""
    loaded = session.store.load(session.id)
    conversation = Conversation(loaded.messages)
    return Checkpoints(session.root, session.id, conversation, None, loaded.checkpoints)


def four_changes(session: Session) -> None:
    root = session.root
    (root / "data.bin").write_bytes(BINARY)
    (root / "crlf.txt").write_bytes(CRLF)
    (root / "run.sh").write_bytes(SCRIPT)
    (root / "run.sh").chmod(0o755)
    session.turn(
        "change four files",
        {
            "data.bin": b"\x00\x01changed\xff",
            "crlf.txt": b"one\r\nTWO\r\nthree\r\n",
            "new/dir/created.txt": b"fresh\n",
            "run.sh": None,
        },
    )


def test_undo_puts_every_file_back_byte_for_byte(session: Session) -> None:
    root = session.root
    four_changes(session)
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.turn == 0 and preview.text == "change four files"
    assert {plan.path: plan.action for plan in preview.files} == {
        "data.bin": "restore",
        "crlf.txt": "restore",
        "new/dir/created.txt": "delete",
        "run.sh": "recreate",
    }
    assert preview.conflicts == () and preview.commands == ()

    result = session.checkpoints.undo()
    assert result.failed == ()
    assert read(root, "data.bin") == BINARY and read(root, "crlf.txt") == CRLF
    assert read(root, "run.sh") == SCRIPT and (root / "run.sh").stat().st_mode & 0o777 == 0o755
    assert not (root / "new/dir/created.txt").exists()
    assert session.conversation.messages == []
    assert kinds(session)[-1] == "undone"
    assert session.store.load(session.id).messages == []


def test_redo_after_reopening_puts_the_turn_back(session: Session) -> None:
    root = session.root
    four_changes(session)
    said = session.conversation.messages
    session.checkpoints.undo()

    reopened = session.reopened()
    assert reopened.can_redo
    preview = reopened.redo_preview()
    assert preview is not None and preview.text == "change four files"
    result = reopened.redo()
    assert result.failed == ()
    assert read(root, "data.bin") == b"\x00\x01changed\xff"
    assert read(root, "crlf.txt") == b"one\r\nTWO\r\nthree\r\n"
    assert read(root, "new/dir/created.txt") == b"fresh\n"
    assert not (root / "run.sh").exists()
    assert reopened.conversation.messages == said
    assert not reopened.can_redo

    assert reopened.writer is not None
    reopened.writer.close()
    again = Checkpoints.open(root, session.id)  # reopened once more: it can be undone again
    assert again.conversation.messages == said
    again.undo()
    assert read(root, "data.bin") == BINARY and read(root, "run.sh") == SCRIPT


def test_only_the_last_turn_is_undone_and_rewind_goes_further(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"v0\n")
    session.turn("first", {"a.txt": b"v1\n"})
    session.turn("second", {"a.txt": b"v2\n", "b.txt": b"new\n"})
    checkpoints = session.checkpoints
    assert [(t.turn, t.text, t.files) for t in checkpoints.turns()] == [
        (0, "first", ("a.txt",)),
        (1, "second", ("a.txt", "b.txt")),
    ]

    checkpoints.undo()
    assert read(root, "a.txt") == b"v1\n" and not (root / "b.txt").exists()
    assert [t.text for t in checkpoints.turns()] == ["first"]
    checkpoints.redo()
    assert read(root, "a.txt") == b"v2\n" and read(root, "b.txt") == b"new\n"

    previews = checkpoints.rewind_preview(0)
    assert [p.text for p in previews] == ["second", "first"]
    assert all(not p.conflicts for p in previews)
    result = checkpoints.rewind(0)
    assert len(result.turns) == 2 and result.failed == ()
    assert read(root, "a.txt") == b"v0\n" and not (root / "b.txt").exists()
    assert checkpoints.turns() == []

    checkpoints.redo()  # one turn at a time, the earliest first
    assert read(root, "a.txt") == b"v1\n" and [t.text for t in checkpoints.turns()] == ["first"]
    checkpoints.redo()
    assert read(root, "a.txt") == b"v2\n" and read(root, "b.txt") == b"new\n"
    assert session.reopened().conversation.messages == checkpoints.conversation.messages


def test_a_file_changed_outside_zizou_is_refused_unless_forced(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"before\n")
    (root / "b.txt").write_bytes(b"b before\n")
    session.turn("edit both", {"a.txt": b"zizou\n", "b.txt": b"b zizou\n"})
    (root / "a.txt").write_bytes(b"the user's own edit\n")

    preview = session.checkpoints.undo_preview()
    assert preview is not None and [p.path for p in preview.conflicts] == ["a.txt"]
    with pytest.raises(UndoRefused, match=r"a\.txt \(changed outside zizou") as refused:
        session.checkpoints.undo()
    assert [plan.path for plan in refused.value.conflicts] == ["a.txt"]
    assert read(root, "a.txt") == b"the user's own edit\n" and read(root, "b.txt") == b"b zizou\n"
    assert len(session.conversation) == 2

    result = session.checkpoints.undo(force=True)
    assert read(root, "a.txt") == b"before\n" and read(root, "b.txt") == b"b before\n"
    assert [o.note for o in result.files if o.path == "a.txt"] == [
        "it had changed outside zizou; overwritten"
    ]
    session.checkpoints.redo()  # the user's edit was kept: redo brings it back
    assert read(root, "a.txt") == b"the user's own edit\n" and read(root, "b.txt") == b"b zizou\n"


def test_a_file_changed_again_in_the_turn_goes_back_to_before_the_turn(session: Session) -> None:
    (session.root / "a.txt").write_bytes(b"original\n")
    session.writer.begin_turn("twice", [])
    session.conversation.add_user("twice")
    session.change("a.txt", b"first edit\n")
    session.change("a.txt", b"second edit\n")
    session.conversation.add_assistant("done")
    [change] = session.checkpoints.history.turns[0].values()
    assert change.before != change.after
    session.checkpoints.undo()
    assert read(session.root, "a.txt") == b"original\n"


def test_a_new_turn_clears_redo_here_and_when_reloaded(session: Session) -> None:
    session.turn("first", {"a.txt": b"1\n"})
    session.checkpoints.undo()
    assert session.checkpoints.can_redo
    session.turn("instead", {"b.txt": b"2\n"})
    assert not session.checkpoints.can_redo
    with pytest.raises(UndoError, match="nothing to redo"):
        session.checkpoints.redo()
    reopened = session.reopened()
    assert not reopened.can_redo
    assert [t.text for t in reopened.turns()] == ["instead"]
    assert [t.files for t in reopened.turns()] == [("b.txt",)]  # not the undone turn's a.txt


def test_redo_waits_for_the_conversation_as_undo_left_it(session: Session) -> None:
    session.turn("first", {"a.txt": b"1\n"})
    session.checkpoints.undo()
    shared = ShellRun(command="ls", result="exit code 0\na.txt", ok=True)
    session.conversation.add_user("I ran ls", shell=shared)
    assert not session.checkpoints.can_redo and session.checkpoints.redo_preview() is None
    with pytest.raises(UndoError, match="the conversation went on"):
        session.checkpoints.redo()


def test_a_shared_command_goes_with_its_turn_and_commands_are_listed(session: Session) -> None:
    session.turn("first", {"a.txt": b"1\n"})
    shared = ShellRun(command="make lint", result="exit code 0", ok=True)
    session.conversation.add_user("the output of make lint", shell=shared)
    session.turn("fix it", {"a.txt": b"2\n"}, commands=("pytest -q",))
    [first, second] = session.checkpoints.turns()
    assert (first.turn, second.turn) == (0, 2)
    assert second.commands == ("!make lint", "pytest -q") and second.text == "fix it"
    session.checkpoints.undo()
    assert session.conversation.messages == session.store.load(session.id).wire()
    assert [m["content"] for m in session.conversation.messages] == ["first", "done"]
    assert read(session.root, "a.txt") == b"1\n"


def test_a_copy_pruned_away_cannot_be_put_back(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"old a\n")
    (root / "b.txt").write_bytes(b"old b\n")
    session.turn("edit", {"a.txt": b"new a\n", "b.txt": b"new b\n"})
    for blob in (root / BLOBS_DIR).rglob("*"):
        if blob.is_file() and blob.read_bytes() == b"old a\n":
            blob.unlink()
    with pytest.raises(UndoRefused, match="its saved copy is gone"):
        session.checkpoints.undo()
    result = session.checkpoints.undo(force=True)
    assert [(o.path, o.ok) for o in result.files] == [("a.txt", False), ("b.txt", True)]
    assert read(root, "a.txt") == b"new a\n" and read(root, "b.txt") == b"old b\n"


def test_nothing_to_undo_says_so(session: Session) -> None:
    assert session.checkpoints.undo_preview() is None
    with pytest.raises(UndoError, match="nothing to undo"):
        session.checkpoints.undo()
    with pytest.raises(UndoError, match="no turn 3"):
        session.checkpoints.rewind(3)


def test_the_session_file_keeps_each_change_once_and_after_it_ran(session: Session) -> None:
    (session.root / "a.txt").write_bytes(b"x\n")
    session.turn("edit", {"a.txt": b"y\n"})
    lines = session.store.path(session.id).read_text().splitlines()
    records = [json.loads(line) for line in lines if '"checkpoint"' in line]
    assert [(r["turn"], r["path"]) for r in records] == [(0, "a.txt"), (0, "a.txt")]
    assert records[0]["before"] == records[0]["after"] == records[1]["before"]
    assert records[1]["after"] != records[1]["before"]
    assert [r["settled"] for r in records] == [False, True]
    assert records[0]["mode"] == (session.root / "a.txt").stat().st_mode & 0o777


def test_a_directory_swapped_for_a_symlink_is_never_written_through(
    session: Session, tmp_path: Path
) -> None:
    root = session.root
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_bytes(b"before\n")
    session.turn("edit", {"sub/a.txt": b"after\n"})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_bytes(b"after\n")  # the same bytes, elsewhere
    (root / "sub" / "a.txt").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside)

    with pytest.raises(UndoRefused, match=r"sub/a\.txt"):
        session.checkpoints.undo()
    result = session.checkpoints.undo(force=True)
    [outcome] = result.files
    assert not outcome.ok and "symbolic link" in outcome.note
    assert (outside / "a.txt").read_bytes() == b"after\n"


def test_a_file_whose_bytes_were_not_kept_cannot_be_undone() -> None:
    change = FileChange("big.log", None, None, 0o644, unsaved="larger than 64 MiB")
    plan = plan_file(change, None, None, undo=True, has=lambda sha: True)
    assert plan.blocked
    assert plan.problem == "its bytes before the turn were not kept: larger than 64 MiB"


def test_an_undo_cut_short_by_a_crash_is_finished_by_the_next_one(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"before\n")
    session.turn("edit", {"a.txt": b"after\n", "b.txt": b"made\n"})
    session.checkpoints.undo()
    path = session.store.path(session.id)
    data = path.read_bytes()
    path.write_bytes(data[: data.rindex(b'{"kind":"undone"') + 40])  # the undone line torn

    reopened = session.reopened()
    assert [t.text for t in reopened.turns()] == ["edit"]  # the files went back, the line did not
    preview = reopened.undo_preview()
    assert preview is not None and {p.action for p in preview.files} == {"none"}
    result = reopened.undo()
    assert {o.note for o in result.files} == {"already as it was"}
    assert reopened.conversation.messages == [] and read(root, "a.txt") == b"before\n"
    assert session.store.load(session.id).messages == []  # the next line was read whole
    assert reopened.can_redo


def test_a_call_that_changed_nothing_is_no_change_of_the_turn(session: Session) -> None:
    (session.root / "a.txt").write_bytes(b"same\n")
    session.turn("look", {"a.txt": b"same\n"})
    assert [t.files for t in session.checkpoints.turns()] == [()]
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.files == ()


def test_a_crash_while_a_tool_writes_leaves_the_file_to_the_user(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"before\n")
    session.writer.begin_turn("edit", [])
    session.conversation.add_user("edit")
    with open_handle(root, "a.txt") as handle:
        session.checkpoints.before_change(handle)
        handle.atomic_write(b"half done\n")  # and then zizou was killed: no after_change
    reopened = session.reopened()
    preview = reopened.undo_preview()
    assert preview is not None and [p.path for p in preview.conflicts] == ["a.txt"]
    reopened.undo(force=True)
    assert read(root, "a.txt") == b"before\n"


def test_undo_stops_at_a_summary_but_not_at_a_shortening(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"0\n")
    session.turn("first", {"a.txt": b"1\n"})
    shortened = [*session.conversation.messages]
    shortened[-1] = {"role": "assistant", "content": "[dropped to fit]"}
    session.conversation.replace(shortened)  # what a context overflow's shortening does
    session.writer.record_compaction(shortened)
    assert [t.text for t in from_the_file(session).turns()] == ["first"]

    summary = [
        {"role": "user", "content": "This session was compacted: ..."},
        {"role": "assistant", "content": "Understood."},
    ]
    session.conversation.replace(summary)  # what /compact does, then tells the recorders
    event = Compacted("user", "...", 100, 10, tuple(summary))
    session.writer.emit(event)
    session.checkpoints.emit(event)
    assert session.checkpoints.turns() == []
    with pytest.raises(UndoError, match="compacted since its last turn"):
        session.checkpoints.undo()

    session.turn("second", {"a.txt": b"2\n"})
    assert [(t.turn, t.files) for t in session.checkpoints.turns()] == [(1, ("a.txt",))]
    reopened = session.reopened()
    assert [(t.turn, t.files) for t in reopened.turns()] == [(1, ("a.txt",))]
    reopened.undo()
    assert read(root, "a.txt") == b"1\n"
    assert [m["content"] for m in reopened.conversation.messages] == [s["content"] for s in summary]
    with pytest.raises(UndoError, match="nothing to undo"):
        reopened.undo()
