"""The call runner keeps a write's or a delete's files for undo through the handles the call
resolved, and a command's from before it runs to before its result, only once the call is
allowed; a recorder that fails never stops the call."""

from __future__ import annotations

from pathlib import Path

from scripted_agent import call, collect, make_agent

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions
from zizou.confined import PathHandle
from zizou.contracts.events import ToolCallFinished, ToolProgress
from zizou.contracts.protocols import Approval, CommandWatching
from zizou.providers.fake import ScriptedModel
from zizou.sandbox.layer_apply import Applied
from zizou.session.assembly import build_session


class Watch:
    """A command's watch: says what it found when the command ended."""

    def __init__(self, watching: Watching, command: str, problem: str | None) -> None:
        self.watching = watching
        self.command = command
        self.problem = problem

    def finished(self, applied: Applied | None = None) -> str | None:
        made = (self.watching.root / "made.txt").exists()
        self.watching.seen.append(("finished", self.command, made))
        return "what it changed is not kept for undo: full" if self.watching.fail else None


class Watching:
    def __init__(self, fail: bool = False, root: Path | None = None) -> None:
        self.fail = fail
        self.root = root or Path("/nonexistent")
        self.seen: list[tuple[str, str, bool]] = []  # (step, rel, whether the file existed)

    def before_command(self, command: str, watched: CommandWatching = "snapshot") -> Watch:
        self.seen.append(("command", command, (self.root / "made.txt").exists()))
        return Watch(self, command, "no room" if self.fail else None)

    def before_change(self, file: PathHandle) -> str | None:
        self.seen.append(("before", file.rel, file.stat() is not None))
        if self.fail:
            raise OSError("disk full")
        return None

    def after_change(self, file: PathHandle) -> None:
        self.seen.append(("after", file.rel, file.stat() is not None))


async def test_writes_and_deletes_are_watched_reads_and_denials_are_not(tmp_path: Path) -> None:
    (tmp_path / "old.txt").write_text("old\n")
    replies = [
        {"tool_calls": [call("read_file", path="old.txt")]},
        {"tool_calls": [call("write_file", path="new.txt", content="hi\n")]},
        {"tool_calls": [call("delete_file", path="old.txt")]},  # denied
        {"tool_calls": [call("delete_file", path="old.txt")]},
        {"text": "done"},
    ]
    approver = ScriptedApprover([Approval("deny"), Approval("once")])
    watching = Watching()
    agent, _ = make_agent(tmp_path, replies, approver, changes=watching)
    await collect(agent, "go")
    assert watching.seen == [
        ("before", "new.txt", False),
        ("after", "new.txt", True),
        ("before", "old.txt", True),
        ("after", "old.txt", False),
    ]


async def test_a_failing_recorder_is_said_and_the_call_still_runs(tmp_path: Path) -> None:
    replies = [{"tool_calls": [call("write_file", path="a.txt", content="x\n")]}, {"text": "ok"}]
    agent, _ = make_agent(tmp_path, replies, rules=Rules(yes=True), changes=Watching(fail=True))
    events = await collect(agent, "go")
    notes = [e.text for e in events if isinstance(e, ToolProgress)]
    assert notes == ["a.txt is not kept for undo: OSError: disk full"]
    assert [e.ok for e in events if isinstance(e, ToolCallFinished)] == [True]
    assert (tmp_path / "a.txt").read_text() == "x\n"


async def test_a_command_is_watched_from_before_it_runs_to_before_its_result(
    tmp_path: Path,
) -> None:
    replies = [
        {"tool_calls": [call("run_bash", command="touch made.txt")]},
        {"tool_calls": [call("run_bash", command="rm made.txt")]},  # denied: not watched
        {"text": "done"},
    ]
    approver = ScriptedApprover([Approval("once"), Approval("deny")])
    watching = Watching(root=tmp_path)
    agent, _ = make_agent(tmp_path, replies, approver, changes=watching)
    events = await collect(agent, "go")
    assert watching.seen == [
        ("command", "touch made.txt", False),
        ("finished", "touch made.txt", True),
    ]
    assert [e.ok for e in events if isinstance(e, ToolCallFinished)] == [True, False]


async def test_a_command_whose_files_are_not_kept_still_runs_and_says_so(tmp_path: Path) -> None:
    replies = [{"tool_calls": [call("run_bash", command="touch made.txt")]}, {"text": "ok"}]
    failing = Watching(fail=True, root=tmp_path)
    agent, _ = make_agent(tmp_path, replies, rules=Rules(yes=True), changes=failing)
    events = await collect(agent, "go")
    notes = [e.text for e in events if isinstance(e, ToolProgress)]
    assert "the files it changes are not kept for undo: no room" in notes
    assert "what it changed is not kept for undo: full" in notes
    assert [e.ok for e in events if isinstance(e, ToolCallFinished)] == [True]
    assert (tmp_path / "made.txt").exists()


async def test_a_command_run_by_the_runtime_is_undone(project: Path, zizou_home: Path) -> None:
    (project / "keep.txt").write_bytes(b"kept\r\n")
    model = ScriptedModel(
        [
            {"tool_calls": [call("run_bash", command="rm keep.txt && touch made.txt")]},
            {"text": "done"},
        ]
    )
    options = RunOptions(root=project, rules=Rules(yes=True), debug_log=False)
    runtime = build_session(options, model, ScriptedApprover())
    try:
        await collect(runtime.agent, "swap them")
        assert not (project / "keep.txt").exists() and (project / "made.txt").exists()
        checkpoints = runtime.checkpoints
        assert checkpoints is not None and checkpoints.undo().failed == ()
        assert (project / "keep.txt").read_bytes() == b"kept\r\n"
        assert not (project / "made.txt").exists()
    finally:
        runtime.close()


async def test_a_turn_run_by_the_runtime_is_undone_and_redone(
    project: Path, zizou_home: Path
) -> None:
    (project / "keep.crlf").write_bytes(b"a\r\nb\r\n")
    (project / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    model = ScriptedModel(
        [
            {"tool_calls": [call("write_file", path="keep.crlf", content="a\nB\n")]},
            {"tool_calls": [call("write_file", path="made.txt", content="new\n")]},
            {"tool_calls": [call("delete_file", path="blob.bin")]},
            {"text": "done"},
        ]
    )
    options = RunOptions(root=project, rules=Rules(yes=True), debug_log=False)
    runtime = build_session(options, model, ScriptedApprover())
    try:
        await collect(runtime.agent, "three changes")
        assert (project / "keep.crlf").read_bytes() == b"a\r\nB\r\n"
        checkpoints = runtime.checkpoints
        assert checkpoints is not None
        result = checkpoints.undo()
        assert result.failed == ()
        assert (project / "keep.crlf").read_bytes() == b"a\r\nb\r\n"
        assert (project / "blob.bin").read_bytes() == b"\x89PNG\r\n\x1a\n\x00\x00"
        assert not (project / "made.txt").exists()
        assert runtime.agent.conversation.messages == []
        checkpoints.redo()
        assert (project / "made.txt").read_text() == "new\n"
        assert not (project / "blob.bin").exists()
        assert runtime.agent.conversation.messages[-1]["content"] == "done"
    finally:
        runtime.close()
