"""Undo through the real `zizou -p` and `zizou undo` processes against the loopback server: a
turn that changes a CRLF file, creates one and deletes a binary one is undone byte for byte,
redone through the API, a later `-c` turn is undone alone, and a file changed outside zizou
makes `zizou undo` refuse and name it (exit 2) until `--force`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

from zizou.checkpoints import Checkpoints

CRLF = b"first line\r\nsecond line\r\n"
PICTURE = bytes(range(256)) + b"\x89PNG\r\n\x1a\n\x00\xff" * 8


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def turn(project: Path, home: Path, script: list[dict[str, Any]], *more: str) -> CliResult:
    with LoopbackServer([*script, {"text": "done"}]) as srv:
        args = ["-p", "change the files", "--model", "openai/test-model"]
        args += ["--api-base", srv.base_url, "--yes", "--output-format", "json", *more]
        result = run_cli(args, project, home)
    assert result.code == 0, result.stderr
    return result


def three_changes(project: Path, home: Path) -> str:
    (project / "notes.txt").write_bytes(CRLF)
    (project / "picture.bin").write_bytes(PICTURE)
    result = turn(
        project,
        home,
        [
            call("write_file", path="notes.txt", content="first line\nSECOND LINE\n"),
            call("write_file", path="src/made.py", content="print('made')\n"),
            call("delete_file", path="picture.bin"),
        ],
    )
    assert (project / "notes.txt").read_bytes() == b"first line\r\nSECOND LINE\r\n"
    assert not (project / "picture.bin").exists()
    session_id = result.json()["session_id"]
    assert isinstance(session_id, str)
    return session_id


def assert_as_before(project: Path) -> None:
    assert (project / "notes.txt").read_bytes() == CRLF
    assert (project / "picture.bin").read_bytes() == PICTURE
    assert not (project / "src" / "made.py").exists()


def test_a_three_file_turn_is_undone_byte_for_byte_and_redone_through_the_api(
    project: Path, zizou_home: Path
) -> None:
    session_id = three_changes(project, zizou_home)

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert f"undid turn 1 of session {session_id}: 'change the files'" in undone.stdout
    for line in ("restored      notes.txt", "deleted       src/made.py", "picture.bin"):
        assert line in undone.stdout
    assert_as_before(project)

    checkpoints = Checkpoints.open(project, session_id)  # what the app's /redo calls
    try:
        assert checkpoints.can_redo and checkpoints.redo().failed == ()
    finally:
        assert checkpoints.writer is not None
        checkpoints.writer.close()
    assert (project / "notes.txt").read_bytes() == b"first line\r\nSECOND LINE\r\n"
    assert (project / "src" / "made.py").read_text() == "print('made')\n"
    assert not (project / "picture.bin").exists()
    assert run_cli(["undo"], project, zizou_home).code == 0  # and undone again from the file
    assert_as_before(project)


def test_after_continue_undo_undoes_only_the_latest_turn(project: Path, zizou_home: Path) -> None:
    session_id = three_changes(project, zizou_home)
    later = turn(project, zizou_home, [call("write_file", path="later.txt", content="2\n")], "-c")
    assert later.json()["session_id"] == session_id

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert "undid turn 2 " in undone.stdout and "later.txt" in undone.stdout
    assert not (project / "later.txt").exists()
    assert (project / "src" / "made.py").exists() and not (project / "picture.bin").exists()

    listed = run_cli(["undo", "--list"], project, zizou_home)
    assert listed.code == 0 and "notes.txt, src/made.py, picture.bin" in listed.stdout
    assert "later.txt" not in listed.stdout


def test_a_file_changed_outside_zizou_makes_undo_refuse_and_name_it(
    project: Path, zizou_home: Path
) -> None:
    assert run_cli(["undo"], project, zizou_home).code == 2  # no session yet
    three_changes(project, zizou_home)
    (project / "notes.txt").write_bytes(b"edited by hand\n")

    refused = run_cli(["undo"], project, zizou_home)
    assert refused.code == 2
    assert "notes.txt (changed outside zizou since the turn)" in refused.stderr
    assert "zizou undo --force" in refused.stderr
    assert (project / "notes.txt").read_bytes() == b"edited by hand\n"
    assert (project / "src" / "made.py").exists()  # nothing was changed

    forced = run_cli(["undo", "--force"], project, zizou_home)
    assert forced.code == 0, forced.stderr
    assert "notes.txt (it had changed outside zizou; overwritten)" in forced.stdout
    assert_as_before(project)
    assert run_cli(["undo"], project, zizou_home).code == 2  # nothing left to undo


def test_undo_stops_at_the_active_session_and_names_another_only_when_asked(
    project: Path, zizou_home: Path
) -> None:
    older = turn(project, zizou_home, [call("write_file", path="old.txt", content="kept\n")])
    newer = turn(project, zizou_home, [call("write_file", path="new.txt", content="undone\n")])
    older_id, newer_id = older.json()["session_id"], newer.json()["session_id"]
    assert older_id != newer_id

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert f"undid turn 1 of session {newer_id}" in undone.stdout
    assert not (project / "new.txt").exists()

    for args in (["undo"], ["undo", "--dry-run"]):
        nothing = run_cli(args, project, zizou_home)
        assert nothing.code == 2, nothing.stdout
        assert f"nothing left to undo in session {newer_id} (the active one)" in nothing.stderr
        assert "zizou undo --session ID" in nothing.stderr
        assert (project / "old.txt").read_text() == "kept\n"  # the older session is untouched
    listed = run_cli(["undo", "--list"], project, zizou_home)
    assert listed.code == 0 and f"session {newer_id}: 0 turns" in listed.stdout

    named = run_cli(["undo", "--session", older_id], project, zizou_home)
    assert named.code == 0, named.stderr
    assert f"undid turn 1 of session {older_id}" in named.stdout
    assert not (project / "old.txt").exists()
    again = run_cli(["undo", "--session", older_id], project, zizou_home)
    assert again.code == 2 and f"nothing left to undo in session {older_id}:" in again.stderr


def test_list_numbers_turns_from_one_as_undo_and_dry_run_do(
    project: Path, zizou_home: Path
) -> None:
    turn(project, zizou_home, [call("write_file", path="one.txt", content="1\n")])
    turn(project, zizou_home, [call("write_file", path="two.txt", content="2\n")], "-c")

    listed = run_cli(["undo", "--list"], project, zizou_home)
    assert listed.code == 0, listed.stderr
    numbers = [line.split()[0] for line in listed.stdout.splitlines()[1:] if "[" in line]
    assert numbers == ["1", "2"]
    dry = run_cli(["undo", "--dry-run"], project, zizou_home)
    assert "undo would undo turn 2 " in dry.stdout
    done = run_cli(["undo"], project, zizou_home)
    assert "undid turn 2 " in done.stdout


def layer(request: dict[str, Any], name: str) -> str:
    system = request["messages"][0]["content"]
    assert isinstance(system, str)
    return system.split(f"# {name}\n\n")[1].split("\n\n# ")[0] if f"# {name}\n\n" in system else ""


def test_undo_takes_back_the_task_state_and_the_windows_the_turn_set(
    project: Path, zizou_home: Path
) -> None:
    (project / "a.py").write_text("def a():\n    return 1\n")
    (project / "b.py").write_text("def b():\n    return 2\n")
    first = {"goal": "keep me", "plan": [{"id": "p1", "title": "read", "status": "pending"}]}
    turn(
        project,
        zizou_home,
        [call("update_state", merge=first), call("open_in_workspace", path="a.py")],
    )
    ticked = {"goal": "ship it", "plan": [{"id": "p1", "title": "read", "status": "done"}]}
    second = turn(
        project,
        zizou_home,
        [call("update_state", merge=ticked), call("open_in_workspace", path="b.py")],
        "-c",
    )
    assert second.json()["state"]["goal"] == "ship it"

    assert run_cli(["undo"], project, zizou_home).code == 0

    with LoopbackServer([{"text": "where were we"}]) as srv:
        args = ["-c", "-p", "go on", "--model", "openai/test-model", "--api-base", srv.base_url]
        resumed = run_cli([*args, "--output-format", "json"], project, zizou_home)
        [request] = srv.chat_requests
    assert resumed.code == 0, resumed.stderr
    state = layer(request, "TASK STATE")
    assert '"goal":"keep me"' in state and '"status":"pending"' in state
    assert "ship it" not in state and '"status":"done"' not in state
    assert "a.py" in layer(request, "WORKSPACE") and "b.py" not in layer(request, "WORKSPACE")
    assert resumed.json()["state"]["goal"] == "keep me"
