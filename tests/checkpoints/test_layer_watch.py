"""How a command's changes are kept for undo, by how it was watched: from what its copy-on-write
layer applied (its own changes, sure: undo goes ahead), not at all for a background job (its
changes stay, and undo says why), and a layered command that ended with nothing applied (moved
to the background, or stopped before its layer was read)."""

from __future__ import annotations

import hashlib
import json

from checkpoint_session import Session

from zizou.checkpoints import caveats
from zizou.contracts.messages import ToolMessage
from zizou.contracts.protocols import CommandWatching, ToolCall
from zizou.sandbox.layer_apply import Applied, AppliedFile


def ran(session: Session, command: str, watched: CommandWatching, applied: Applied | None) -> None:
    """One turn whose model ran `command`, watched as `watched`, its layer having `applied`."""
    session.writer.begin_turn("go", session.conversation.messages)
    session.checkpoints.begin_turn("go", session.conversation.messages)
    session.conversation.add_user("go")
    call = ToolCall("c1", "run_bash", json.dumps({"command": command}))
    session.conversation.add_assistant("", (call,))
    watch = session.checkpoints.before_command(command, watched)
    assert watch is not None
    assert watch.finished(applied) is None
    session.conversation.add_tool_result(ToolMessage(tool_call_id="c1", content="ok"))
    session.conversation.add_assistant("done")


def test_what_the_layer_applied_is_undone_without_asking(session: Session) -> None:
    root = session.root
    (root / "made.txt").write_text("made\n")  # as the layer left them
    (root / "kept.txt").write_text("after\n")
    applied = Applied(
        files=[
            AppliedFile("made.txt", "created", after=_sha(b"made\n")),
            AppliedFile("kept.txt", "changed", b"before\n", 0o644, _sha(b"after\n")),
            AppliedFile("gone.txt", "deleted", b"gone\n", 0o600),
        ],
        skipped=[("node_modules/", "created")],
    )
    ran(session, "make it", "layer", applied)
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.conflicts == ()
    assert "node_modules/ (ignored, created)" in caveats(preview)[0]
    session.checkpoints.undo()
    assert not (root / "made.txt").exists()
    assert (root / "kept.txt").read_text() == "before\n"
    assert (root / "gone.txt").read_text() == "gone\n"
    assert (root / "gone.txt").stat().st_mode & 0o777 == 0o600


def test_a_background_job_is_not_watched_and_undo_says_its_changes_stay(
    session: Session,
) -> None:
    ran(session, "npm run dev", "unwatched", None)
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.files == ()
    [stays] = preview.not_undone
    assert stays == "npm run dev (it ran in the background, where what it changes is not watched)"


def test_a_layered_command_that_applied_nothing_yet_says_its_changes_stay(
    session: Session,
) -> None:
    ran(session, "make all", "layer", None)
    preview = session.checkpoints.undo_preview()
    assert preview is not None and preview.files == ()
    [stays] = preview.not_undone
    assert stays.startswith("make all (it was moved to the background or stopped")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
