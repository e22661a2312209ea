"""Every event kind reaches every consumer: the debug log, the session file, headless output
(text and stream-json) and the app's renderer each take one of every kind without failing.

The type check already fails when a consumer's `match` misses a kind; this runs them."""

from __future__ import annotations

import io
import json
from pathlib import Path

from zizou.config.options import RunOptions
from zizou.contracts.events import (
    EVENT_TYPES,
    AgentError,
    AnyEvent,
    BudgetWarning,
    ChecksReported,
    Compacted,
    DeckSuspense,
    HookWarning,
    ModelReplied,
    Nested,
    PermissionDecided,
    PermissionRequested,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepPlanned,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
    TurnStarted,
    Usage,
)
from zizou.contracts.messages import UserMessage
from zizou.contracts.protocols import ModelRequest
from zizou.headless import HeadlessRun
from zizou.providers.fake import ScriptedModel
from zizou.redact import Redactor
from zizou.session.assembly import build_session
from zizou.session.unattended import HeadlessApprover
from zizou.sessions import SessionStore
from zizou.trace.debug_log import DebugLog

ONE_OF_EACH: list[AnyEvent] = [
    TurnStarted("hello"),
    StepStarted(1),
    StepPlanned(1, ("read_file",), (("write_file", "plan mode"),), (), (), 0, ("a.txt · w1",)),
    ReasoningDelta("The notes are in a.txt."),
    TextDelta("Let me look."),
    Retrying(2, 0.5, "rate limited by openai, retrying in 0.5 s (attempt 2 of 5)"),
    ModelReplied(1, "Let me look.", ("read_file",), Usage(10, 5), "tool_calls"),
    ToolCallStarted("c1", "read_file", '{"path": "a.txt"}', "a.txt"),
    ToolProgress("c1", "read_file", "reading"),
    PermissionRequested("c1", "read_file", "read_file a.txt"),
    PermissionDecided("c1", "read_file", "allow", "user", "y (allow once)"),
    ToolCallFinished("c1", "read_file", True, "     1\tA", 0.01),
    StepFinished(1, Usage(10, 5), "tool_calls"),
    AgentError("the provider fell over", detail="Traceback (most recent call last): ..."),
    ChecksReported("src/app.py: new problems from ruff after your changes:"),
    HookWarning("hook:.zizou/hooks/x.py/tick", "raised", detail="Traceback ..."),
    Compacted("auto", "## Goal\nship it", 5000, 300, ({"role": "user", "content": "s"},)),
    Nested("c2", ("greet",), ToolCallFinished("c9", "read_file", True, "     1\tA", 0.01)),
    DeckSuspense(("greet",), "greeting", "still looking up Ada", 1200),
    BudgetWarning("82% of the spending cap is used: $0.8200 of $1.00", 0.82, 1.0, 9000, None),
    TurnFinished("done", "Done.", 1, Usage(10, 5)),
]


def test_the_sample_has_one_event_of_every_kind() -> None:
    assert sorted(type(e).__name__ for e in ONE_OF_EACH) == sorted(t.__name__ for t in EVENT_TYPES)


def test_the_debug_log_records_every_kind(tmp_path: Path) -> None:
    log = DebugLog(tmp_path, Redactor())
    log.begin_turn("hello", [])
    log.record_request(1, ModelRequest("system", [{"role": "user", "content": "hello"}], []))
    for event in ONE_OF_EACH:
        log.emit(event)
    text = (tmp_path / "zizou-debug.log").read_text()
    assert log.problem is None
    for label in ("MODEL-REPLY", "TOOL-PROGRESS", "PERMISSION-DECIDED", "ERROR", "FINISH"):
        assert f" {label}" in text
    assert "Traceback (most recent call last)" in text


def test_the_session_file_takes_every_kind(tmp_path: Path) -> None:
    writer = SessionStore(tmp_path).create("s1", "m")
    writer.begin_turn("hello", [])
    writer.append_message(UserMessage(content="hello"))
    for event in ONE_OF_EACH:
        writer.emit(event)
    writer.close()
    kinds = [json.loads(line)["kind"] for line in writer.path.read_text().splitlines()]
    assert kinds == ["meta", "turn", "message", "compacted", "turn"]  # the summary is kept


def test_headless_output_takes_every_kind(tmp_path: Path) -> None:
    options = RunOptions(root=tmp_path, debug_log=False)
    runtime = build_session(options, ScriptedModel(), HeadlessApprover(), persist=False)
    try:
        for output_format in ("text", "stream-json"):
            out, err = io.StringIO(), io.StringIO()
            run = HeadlessRun(runtime, output_format, out=out, err=err)
            for event in ONE_OF_EACH:
                run._render(event)
            if output_format == "stream-json":
                types = [json.loads(line)["type"] for line in out.getvalue().splitlines()]
                assert types == [event.type for event in ONE_OF_EACH]
            else:
                assert "the provider fell over" in err.getvalue()
    finally:
        runtime.close()
