"""A session file may come with a cloned repository: what undo would restore from it is checked
as it is read, so it can never write git's files, set a setuid bit, or poison a later turn."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zizou.sessions import SessionStore
from zizou.sessions.records import CheckpointRecord

SHA = "a" * 64


def planted(root: Path, *lines: dict[str, Any]) -> Path:
    sessions = root / ".zizou" / "sessions"
    sessions.mkdir(parents=True)
    meta = {"kind": "meta", "v": 2, "id": "s1", "created": "2026-01-01T00:00:00+00:00"}
    user = {"kind": "message", "message": {"role": "user", "content": "hi"}}
    path = sessions / "s1.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in (meta, user, *lines)) + "\n")
    return path


def checkpoint(path: str, turn: int = 0, **more: Any) -> dict[str, Any]:
    return {"kind": "checkpoint", "turn": turn, "path": path, "before": SHA, "after": None, **more}


def test_lines_naming_git_zizou_or_paths_out_of_the_project_are_skipped(tmp_path: Path) -> None:
    planted(
        tmp_path,
        checkpoint(".git/hooks/pre-commit"),
        checkpoint(".zizou/info.json"),
        checkpoint("../outside.txt"),
        checkpoint("/etc/passwd"),
        checkpoint("src/ok.py"),
    )
    loaded = SessionStore(tmp_path).load("s1")
    paths = [line.path for line in loaded.checkpoints if isinstance(line, CheckpointRecord)]
    assert paths == ["src/ok.py"]
    assert sum("could not be read" in warning for warning in loaded.warnings) == 4


def test_a_mode_keeps_permission_bits_only_and_hashes_must_be_sha256(tmp_path: Path) -> None:
    planted(tmp_path, checkpoint("run.sh", mode=0o6777), checkpoint("x.py", before="../../x"))
    loaded = SessionStore(tmp_path).load("s1")
    lines = [line for line in loaded.checkpoints if isinstance(line, CheckpointRecord)]
    assert [(line.path, line.mode) for line in lines] == [("run.sh", 0o777)]


def test_a_line_for_a_turn_that_is_not_running_is_skipped(tmp_path: Path) -> None:
    planted(tmp_path, checkpoint("app.py", turn=1), checkpoint("app.py", turn=0))
    loaded = SessionStore(tmp_path).load("s1")
    lines = [line for line in loaded.checkpoints if isinstance(line, CheckpointRecord)]
    assert [line.turn for line in lines] == [0]
    assert any("names turn 1 where turn 0 runs" in warning for warning in loaded.warnings)


def test_a_session_open_in_another_process_is_not_written_by_this_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    import pytest

    from zizou.errors import PathError

    planted(tmp_path)
    holder = (
        "import sys; from pathlib import Path; from zizou.sessions import SessionStore;"
        f"w = SessionStore(Path({str(tmp_path)!r})).writer('s1'); print('held', flush=True);"
        "sys.stdin.read()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(PathError, match="open in another zizou"):
            SessionStore(tmp_path).writer("s1")
    finally:
        proc.communicate("")
    SessionStore(tmp_path).writer("s1").close()  # let go of, it is free again


def command(turn: int = 0, **note: Any) -> dict[str, Any]:
    return {"kind": "command", "turn": turn, "note": {"command": "make", **note}}


def test_command_lines_are_checked_and_what_they_name_is_only_shown(tmp_path: Path) -> None:
    from zizou.checkpoints import Checkpoints
    from zizou.sessions.records import CommandRecord

    unkept = {"path": "../../etc/passwd", "why": "ignored", "change": "deleted"}
    planted(
        tmp_path,
        command(turn=1),  # not the turn that runs
        command(unkept=[{"path": "x", "why": "anything", "change": "deleted"}]),
        command(unkept=[unkept]),
    )
    loaded = SessionStore(tmp_path).load("s1")
    lines = [line for line in loaded.checkpoints if isinstance(line, CommandRecord)]
    assert [line.note.unkept[0].path for line in lines] == ["../../etc/passwd"]
    assert any("names turn 1 where turn 0 runs" in warning for warning in loaded.warnings)
    assert any("could not be read" in warning for warning in loaded.warnings)
    checkpoints = Checkpoints.open(tmp_path, "s1")
    try:
        preview = checkpoints.undo_preview()
        assert preview is not None and preview.files == ()  # named, never written
        assert preview.unkept[0].path == "../../etc/passwd"
    finally:
        assert checkpoints.writer is not None
        checkpoints.writer.close()
