"""The session's state has one owner: windows shown are views the read ledger knows, every change
to the workspace is told to subscribers, and a resumed session opens with the workspace it
left."""

from __future__ import annotations

import json
from pathlib import Path

from scripted_agent import call, collect, make_agent

from zizou.agent.approvers import ScriptedApprover
from zizou.config.options import RunOptions, SessionChoice
from zizou.contracts.events import ToolCallFinished
from zizou.contracts.state import FileView, SessionState, WorkspaceChanged
from zizou.contracts.windows import WHOLE_FILE
from zizou.contracts.workspace import line_spec
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session


async def test_a_pinned_file_can_be_edited_without_reading_it_first(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    edit = call("edit_file", path="notes.txt", old_string="beta", new_string="gamma")
    agent, model = make_agent(tmp_path, [{"tool_calls": [edit]}, {"text": "done"}])
    agent.prompt.state.open_window("notes.txt", WHOLE_FILE, by="user")  # type: ignore[attr-defined]
    events = await collect(agent, "change beta")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.ok, finished.output
    assert (tmp_path / "notes.txt").read_text() == "alpha\ngamma\n"
    assert "     2\tbeta" in model.requests[0].system  # what the model saw, and edited


async def test_a_pin_changed_since_the_prompt_showed_it_is_not_edited_blind(
    tmp_path: Path,
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("alpha\nbeta\n")
    state = SessionState()
    state.record_view(notes.resolve(), notes.read_bytes(), FileView("notes.txt"))
    notes.write_text("alpha\nbeta\ndelta\n")
    assert "changed since" in (state.check_unchanged(notes.resolve(), notes.read_bytes()) or "")


def test_every_workspace_change_is_told_to_the_subscribers() -> None:
    state = SessionState()
    seen: list[WorkspaceChanged] = []
    state.subscribe(seen.append)
    state.open_window("a.py", WHOLE_FILE)
    state.open_window("b.py", line_spec(3, 9), by="user")
    state.open_window("a.py", line_spec(1, 2))  # a second window on a file
    state.open_window("a.py", WHOLE_FILE)  # already open: nothing changes, nothing is told
    assert [w.id for w in state.close_windows("b.py", by="user")] == ["w2"]
    assert state.close_windows("missing.py") == []
    assert [w.id for w in state.close_windows(window_id="w1")] == ["w1"]
    assert [(e.by, [(w.id, w.path, w.spec) for w in e.windows]) for e in seen] == [
        ("model", [("w1", "a.py", "whole file")]),
        ("user", [("w1", "a.py", "whole file"), ("w2", "b.py", "lines 3-9")]),
        (
            "model",
            [
                ("w1", "a.py", "whole file"),
                ("w2", "b.py", "lines 3-9"),
                ("w3", "a.py", "lines 1-2"),
            ],
        ),
        ("user", [("w1", "a.py", "whole file"), ("w3", "a.py", "lines 1-2")]),
        ("model", [("w3", "a.py", "lines 1-2")]),
    ]


def test_a_resumed_session_opens_with_the_workspace_it_left(
    tmp_path: Path, zizou_home: Path
) -> None:
    (tmp_path / "a.py").write_text("A = 1\n")
    first = build_session(RunOptions(root=tmp_path), ScriptedModel(), ScriptedApprover())
    first.state.conversation.add_user("look at a.py")
    first.state.open_window("a.py", line_spec(1, 1), by="user")
    first.close()
    lines = first.writer.path.read_text().splitlines() if first.writer else []
    record = json.loads(lines[-1])
    assert record["kind"] == "workspace"
    assert [(w["id"], w["path"], w["spec"]) for w in record["windows"]] == [
        ("w1", "a.py", {"start": {"line": 1}, "end": {"line": 1}})
    ]
    options = RunOptions(root=tmp_path, session=SessionChoice(continue_last=True))
    resumed = build_session(options, ScriptedModel(), ScriptedApprover())
    try:
        assert resumed.session_id == first.session_id
        assert [(w.id, w.path, w.spec) for w in resumed.state.windows] == [
            ("w1", "a.py", "lines 1-1")
        ]
        assert "## a.py · w1 · lines 1-1\n     1\tA = 1" in resumed.prompt.render_text()
    finally:
        resumed.close()
