"""The workspace in the session file: windows kept with their ids and where they were seen, a
file written before windows had ids read as line windows, a damaged window or a record of a kind
this version does not know skipped with a warning, the rest loaded."""

from __future__ import annotations

import json
from pathlib import Path

from zizou.contracts.messages import from_wire
from zizou.contracts.state import SessionState
from zizou.sessions import SessionStore


def session(tmp_path: Path, *lines: dict[str, object]) -> SessionStore:
    store = SessionStore(tmp_path)
    writer = store.create("s1", "m")
    writer.append_message(from_wire({"role": "user", "content": "hi"}))
    writer.close()
    with store.path("s1").open("a") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    return store


def test_windows_load_with_their_ids_specs_and_last_place(tmp_path: Path) -> None:
    window = {
        "id": "w4",
        "path": "app.py",
        "spec": {"regex": "def main"},
        "by": "model",
        "span": [8, 9],
        "first_text": "def main():",
        "last_text": "    run()",
        "file_hash": "abc",
    }
    store = session(tmp_path, {"kind": "workspace", "windows": [window]})
    [loaded] = store.load("s1").windows
    assert (loaded.id, loaded.path, loaded.spec.regex, loaded.span) == (
        "w4",
        "app.py",
        "def main",
        (8, 9),
    )
    assert (loaded.first_text, loaded.last_text, loaded.by) == (
        "def main():",
        "    run()",
        "session",
    )


def test_a_file_from_before_windows_had_ids_reads_its_pins_as_line_windows(
    tmp_path: Path,
) -> None:
    views = [{"path": "a.py", "start_line": 3, "end_line": 9}, {"path": "b.py"}]
    store = session(tmp_path, {"kind": "workspace", "views": views})
    loaded = store.load("s1").windows
    assert [(w.id, w.path, w.spec.describe()) for w in loaded] == [
        ("w1", "a.py", "lines 3-9"),
        ("w2", "b.py", "whole file"),
    ]


def test_a_damaged_window_and_an_unknown_record_kind_are_skipped_with_warnings(
    tmp_path: Path,
) -> None:
    good = {"id": "w1", "path": "a.py", "spec": {}}
    bad = {"id": "w2", "path": "a.py", "spec": {"regex": "(unclosed"}}
    store = session(
        tmp_path,
        {"kind": "workspace", "windows": [good, bad]},
        {"kind": "deck_run", "deck": {"x": 1}},
    )
    loaded = store.load("s1")
    assert [w.id for w in loaded.windows] == ["w1"]
    assert loaded.warnings[1].startswith("session s1: skipped a workspace window (the regex")
    assert loaded.warnings[0] == (
        "session s1: skipped line 4, a 'deck_run' record this version of zizou does not know"
    )
    assert [m.content for m in loaded.messages] == ["hi"]


def test_window_records_naming_anything_but_plain_paths_and_lines_are_skipped(
    tmp_path: Path,
) -> None:
    bad = [
        {"id": "w1", "path": "../outside.txt", "spec": {}},
        {"id": "w2", "path": "/etc/passwd", "spec": {}},
        {"id": "w3", "path": "a.py", "spec": {}, "span": [0, 3]},
        {"id": "x9", "path": "a.py", "spec": {}},
        {"id": "w5", "path": "a.py", "spec": {}, "span": [2, 4]},
        {"id": "w5", "path": "b.py", "spec": {}},
    ]
    store = session(tmp_path, {"kind": "workspace", "windows": bad})
    loaded = store.load("s1")
    assert [(w.id, w.path) for w in loaded.windows] == [("w5", "a.py"), ("w5", "b.py")]
    assert len(loaded.warnings) == 4
    state = SessionState()
    state.restore(loaded.windows)
    assert [(w.id, w.path) for w in state.windows] == [("w5", "a.py")]  # one window per id
