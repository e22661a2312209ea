"""Tool-call name repair against the real registry: only names with one reading are mended, each
logged and told to the model; every other name stays the "unknown tool" error."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from scripted_agent import assert_history_valid, call, collect, make_agent

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.call_repair import repair_call
from zizou.agent.calls import CallRunner, RunnerItem
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules
from zizou.contracts.events import ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import ToolCall
from zizou.tools import ToolContext, ToolResult, default_registry

NAMES = default_registry().names()
ARGS = '{"path": "a.txt"}'


@pytest.mark.parametrize(
    ("sent", "tool"),
    [
        ("Read_File", "read_file"),
        ("READ_FILE", "read_file"),
        ("readFile", "read_file"),
        ("ReadFile", "read_file"),
        ("openInWorkspace", "open_in_workspace"),
        ("functions.read_file", "read_file"),
        ("tools.read_file", "read_file"),
        ("functions.readFile", "read_file"),
        (" read_file\n", "read_file"),
        ('"read_file"', "read_file"),
        ("'readFile'", "read_file"),
        ("`list_dir`", "list_dir"),
    ],
)
def test_a_name_with_one_reading_is_repaired(sent: str, tool: str) -> None:
    repair = repair_call(sent, ARGS, NAMES)
    assert repair is not None
    assert (repair.name, repair.arguments) == (tool, ARGS)


@pytest.mark.parametrize(
    "sent",
    [
        "read",  # a prefix of two tools' names
        "readFiles",
        "read-file",
        "file_read",
        "functions.",
        "",
        "default_api.read_file",  # a prefix not on the list
        "read_file{not json",
        "read_file[1, 2]",
        'read_file{"path": "a.txt"} extra',
        'grep{"pattern": "x"}{"pattern": "y"}',
    ],
)
def test_a_name_without_one_reading_is_left_alone(sent: str) -> None:
    assert repair_call(sent, ARGS, NAMES) is None


def test_a_registered_name_needs_no_repair() -> None:
    assert repair_call("read_file", "", NAMES) is None


def test_a_name_two_tools_share_up_to_case_is_not_guessed() -> None:
    assert repair_call("readFile", "{}", ["read_file", "ReadFile"]) is None
    assert repair_call("read_file", "{}", ["readFile", "ReadFile"]) is None
    exact = repair_call(" ReadFile ", "{}", ["read_file", "ReadFile"])  # exact once stripped
    assert exact is not None and exact.name == "ReadFile"


@pytest.mark.parametrize("own", ["", "  ", "{}", " { } ", '{"path": "a.txt"}'])
def test_arguments_glued_to_the_name_become_the_arguments(own: str) -> None:
    for sent in (
        'read_file{"path": "a.txt"}',
        'read_file {"path":"a.txt"}',
        'readFile{"path":"a.txt"}',
    ):
        repair = repair_call(sent, own, NAMES)
        assert repair is not None and repair.name == "read_file"
        assert json.loads(repair.arguments) == {"path": "a.txt"}


def test_glued_arguments_that_contradict_the_arguments_field_are_not_guessed() -> None:
    assert repair_call('read_file{"path": "a.txt"}', '{"path": "b.txt"}', NAMES) is None
    assert repair_call('read_file{"path": "a.txt"}', "not json", NAMES) is None


def runner(root: Path) -> CallRunner:
    return CallRunner(
        default_registry(), ToolContext(root=root), CallGates.of(ScriptedApprover(), Rules())
    )


async def run(r: CallRunner, name: str, arguments: str) -> tuple[list[RunnerItem], ToolResult]:
    items = [item async for item in r.run(r.parse(ToolCall("call_1", name, arguments)))]
    result = items[-1]
    assert isinstance(result, ToolResult)
    return items, result


def test_parse_carries_the_repaired_call_and_logs_the_repair(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="zizou.agent.calls"):
        parsed = runner(tmp_path).parse(ToolCall("call_7", 'read_file{"path": "a.txt"}', "{}"))
    assert parsed.problem is None and parsed.tool is not None
    assert parsed.call == ToolCall("call_7", "read_file", '{"path": "a.txt"}')
    assert parsed.called_as == 'read_file{"path": "a.txt"}'
    assert parsed.label == "a.txt"
    [record] = [r for r in caplog.records if r.name == "zizou.agent.calls"]
    assert record.levelno == logging.WARNING
    assert "call_7" in record.getMessage() and "ran read_file" in record.getMessage()


def test_parse_of_a_registered_name_is_untouched(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    sent = ToolCall("call_1", "read_file", ARGS)
    with caplog.at_level(logging.WARNING, logger="zizou.agent.calls"):
        parsed = runner(tmp_path).parse(sent)
    assert parsed.call is sent and parsed.called_as is None and parsed.note is None
    assert caplog.records == []


async def test_the_repaired_call_runs_and_its_result_starts_with_the_note(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    _, result = await run(runner(tmp_path), "readFile", ARGS)
    assert result.ok, result.output
    first, rest = result.output.split("\n", 1)
    assert first == "(called as readFile; ran read_file)"
    assert "alpha" in rest


async def test_a_repaired_call_that_fails_still_carries_the_note(tmp_path: Path) -> None:
    _, result = await run(runner(tmp_path), "Read_File", '{"path": "missing.txt"}')
    assert not result.ok
    assert result.output.startswith("(called as Read_File; ran read_file)\n")


async def test_an_unrepairable_name_stays_the_unknown_tool_error(tmp_path: Path) -> None:
    r = runner(tmp_path)
    parsed = r.parse(ToolCall("call_1", "readFiles", ARGS))
    assert parsed.tool is None and parsed.called_as is None
    _, result = await run(r, "readFiles", ARGS)
    assert not result.ok
    assert result.output == (f"unknown tool 'readFiles'; the tools are: {', '.join(NAMES)}")


async def test_the_loop_runs_the_repaired_calls_under_their_real_names(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("remember the milk\n")
    glued = {"name": 'read_file{"path": "notes.txt"}', "arguments": "{}"}
    replies = [
        {"tool_calls": [call("readFile", path="notes.txt"), glued]},
        {"text": "The note says: remember the milk."},
    ]
    agent, model = make_agent(tmp_path, replies)
    events = await collect(agent, "what do my notes say?")
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.name for e in started] == ["read_file", "read_file"]
    assert [json.loads(e.arguments) for e in started] == [{"path": "notes.txt"}] * 2
    assert all(e.ok and "remember the milk" in e.output for e in finished)
    messages = agent.conversation.messages
    assert_history_valid(messages)
    results = [m for m in messages if m["role"] == "tool"]
    assert [m["content"].splitlines()[0] for m in results] == [
        "(called as readFile; ran read_file)",
        '(called as read_file{"path": "notes.txt"}; ran read_file)',
    ]
    second = model.requests[-1].messages
    assert [m["tool_call_id"] for m in second if m["role"] == "tool"] == [
        c["id"] for m in second if m["role"] == "assistant" for c in m.get("tool_calls") or []
    ]
