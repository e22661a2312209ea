"""zizou-debug.log written for turns of the scripted model: sections, mode, redaction, rewrites,
and failures that must not reach the turn."""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zizou.agent.loop import Agent
from zizou.contracts.events import (
    Event,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    TurnFinished,
    TurnStarted,
)
from zizou.contracts.protocols import ModelRequest
from zizou.errors import ProviderError
from zizou.redact import Redactor
from zizou.trace.debug_log import DebugLog
from zizou.trace.sections import SECTIONS, parse_headings

LOG = "zizou-debug.log"
LoggedAgent = Callable[..., tuple[Agent, DebugLog]]  # the `logged_agent` fixture


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


async def run(agent: Agent, text: str) -> list[Event]:
    return [event async for event in agent.run_turn(text)]


def read_log(root: Path) -> str:
    return (root / LOG).read_text(encoding="utf-8")


def section(text: str, number: int) -> str:
    """The body of numbered section `number` of a log."""
    parts = re.split(r"^=+ (\d+) [A-Z ]+ =+$", text, flags=re.MULTILINE)
    bodies = dict(zip(parts[1::2], parts[2::2], strict=True))
    return bodies[str(number)]


def labels(text: str) -> list[str]:
    """The record labels of section 6, in order."""
    pattern = r"^\d\d:\d\d:\d\d\.\d{3} \+\d+\.\d{3}s ([A-Z-]+)"
    return re.findall(pattern, section(text, 6), flags=re.MULTILINE)


async def test_a_turn_writes_every_section_in_order(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    (tmp_path / "notes.txt").write_text("hello notes\n")
    replies = [
        {"tool_calls": [call("read_file", path="notes.txt"), call("read_file", path="nope.txt")]},
        {"text": "The notes say hello.", "pieces": 4, "cost_usd": 0.0025},
    ]
    agent, log = logged_agent(tmp_path, replies)
    await run(agent, "what do the notes say?")
    text = read_log(tmp_path)

    assert parse_headings(text) == list(enumerate(SECTIONS, 1))
    head = text.split("=====", 1)[0]
    for field in ("time:", "cwd:", "model:", "history:", "step cap:", "prompt size:"):
        assert re.search(rf"^{field} +\S", head, re.MULTILINE), field
    assert f"cwd:          {tmp_path}" in head and "openai/scripted" in head
    assert "step cap:     15" in head

    sent = agent.model.requests[0]  # type: ignore[attr-defined]
    assert section(text, 1).strip() == sent.system.strip()
    assert "[1] user\n    what do the notes say?" in section(text, 3)
    for tool in agent.runner.registry:
        # an old name that runs but is not sent; a tool that could do nothing yet (no job)
        if not tool.advertised or not tool.applies(agent.runner.ctx):
            assert f"---- {tool.name} ----" not in section(text, 4)
            continue
        assert f"---- {tool.name} ----" in section(text, 4)
        assert tool.description().splitlines()[0] in section(text, 4)
    assert '"additionalProperties": false' in section(text, 4)
    params = section(text, 5)
    assert 'model: "openai/scripted"' in params and "stream: true" in params
    assert "max_steps: 15" in params and "api_key" not in params

    # The two reads run side by side: each call's record comes before its result, in
    # whichever order they finish.
    found = labels(text)
    calls = found[5:9]
    assert sorted(calls) == ["TOOL-CALL", "TOOL-CALL", "TOOL-ERROR", "TOOL-RESULT"]
    assert calls[0] == "TOOL-CALL" and calls.index("TOOL-CALL", 1) < 3
    assert found[:5] + found[9:] == [
        "TURN-START",
        "STEP-START",
        "STEP-PLAN",
        "REQUEST",
        "MODEL-REPLY",
        "STEP-FINISH",
        "STEP-START",
        "STEP-PLAN",
        "REQUEST",
        "TEXT-DELTA",
        "MODEL-REPLY",
        "STEP-FINISH",
        "FINISH",
    ]
    events = section(text, 6)
    assert "TEXT-DELTA 4 pieces" in events and "    The notes say hello." in events
    assert "     1\thello notes" in events
    assert "FINISH done after 2 steps" in events
    assert "cost:           $0.002500" in events
    assert log.problem is None


async def test_the_breakdown_lists_every_layer_even_those_that_are_off(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    agent, _ = logged_agent(tmp_path, [{"text": "hi"}])
    await run(agent, "hello")
    breakdown = section(read_log(tmp_path), 2)
    assert re.search(r"^BASE INSTRUCTIONS +[1-9][\d,]*$", breakdown, re.MULTILINE)
    assert re.search(r"^SESSION CONTEXT +[1-9][\d,]*$", breakdown, re.MULTILINE)
    assert re.search(r"^WORKSPACE +0  off: no open files$", breakdown, re.MULTILINE)
    assert re.search(r"^REPO MAP +0  off: ", breakdown, re.MULTILINE)
    assert re.search(r"^LIVE CONTEXT +[1-9][\d,]*$", breakdown, re.MULTILINE)
    offered = [t for t in agent.runner.registry if t.advertised and t.applies(agent.runner.ctx)]
    assert "history:" in breakdown and f"in {len(offered)} schemas" in breakdown


async def test_later_steps_say_which_prompt_layers_changed(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    (tmp_path / "pinned.txt").write_text("PINNED LINE\n")
    replies = [{"tool_calls": [call("open_in_workspace", path="pinned.txt")]}, {"text": "ok"}]
    agent, _ = logged_agent(tmp_path, replies)
    await run(agent, "open it")
    events = section(read_log(tmp_path), 6)
    assert "REQUEST step 2:" in events
    assert "added since the last request: assistant message with 1 tool call, tool result" in events
    assert re.search(r"system prompt changed: .*WORKSPACE 0 -> \d+ chars", events)
    assert "---- WORKSPACE as sent now ----\n        ## pinned.txt · w1 · lines 1-1\n" in events
    assert "             1\tPINNED LINE" in events
    assert "STEP-PLAN 2: offered read_file, write_file" in events
    assert "  workspace: 1 window\n    pinned.txt · w1 · lines 1-1\n" in events


async def test_the_log_is_created_0600_even_over_a_wider_file(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    old = tmp_path / LOG
    old.write_text("the previous message's log\n")
    old.chmod(0o644)
    agent, _ = logged_agent(tmp_path, [{"text": "hi"}])
    await run(agent, "hello")
    assert stat.S_IMODE(os.stat(old).st_mode) == 0o600
    assert "previous message" not in read_log(tmp_path)


async def test_the_canary_key_never_reaches_the_log(
    tmp_path: Path, logged_agent: LoggedAgent, canary: str
) -> None:
    (tmp_path / "config.txt").write_text(f"api_key = {canary}\n")
    history = [
        {"role": "user", "content": f"my key is {canary}"},
        {"role": "assistant", "content": "noted"},
    ]
    replies = [
        {"tool_calls": [call("read_file", path="config.txt"), call("grep", pattern=canary)]},
        {"text": f"The key is {canary}, keep it safe.", "pieces": 7},
    ]
    agent, _ = logged_agent(tmp_path, replies, history=history)
    await run(agent, f"is {canary} in config.txt?")
    text = read_log(tmp_path)
    assert canary not in text
    assert canary[5:25] not in text  # not even a piece of it, streamed in parts
    assert "my key is [REDACTED]" in section(text, 3)
    assert "api_key = [REDACTED]" in section(text, 6)
    assert "The key is [REDACTED], keep it safe." in section(text, 6)


async def test_the_log_is_rewritten_at_each_message(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    agent, _ = logged_agent(tmp_path, [{"text": "first answer"}, {"text": "second answer"}])
    await run(agent, "first message")
    assert "first answer" in read_log(tmp_path)
    await run(agent, "second message")
    text = read_log(tmp_path)
    assert len(parse_headings(text)) == len(SECTIONS)
    assert text.count("TURN-START") == 1
    assert "first answer" not in section(text, 6) and "second answer" in section(text, 6)
    assert "[1] user\n    first message" in section(text, 3)  # earlier turns are history
    assert "[3] user\n    second message" in section(text, 3)
    assert "2 earlier messages + this one = 3 messages sent" in text


async def test_a_log_that_cannot_be_opened_does_not_break_the_turn(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    (tmp_path / LOG).mkdir()
    agent, log = logged_agent(tmp_path, [{"text": "still answered"}])
    events = await run(agent, "hello")
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.text == "still answered"
    assert log.problem is not None and LOG in log.problem and "off for this message" in log.problem


async def test_a_symlink_in_place_of_the_log_is_refused(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    target = tmp_path / "precious.txt"
    target.write_text("do not truncate me\n")
    (tmp_path / LOG).symlink_to(target)
    agent, log = logged_agent(tmp_path, [{"text": "answered"}])
    events = await run(agent, "hello")
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert target.read_text() == "do not truncate me\n"
    assert log.problem is not None and "symbolic link" in log.problem


async def test_a_fifo_in_place_of_the_log_is_refused_without_hanging(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    os.mkfifo(tmp_path / LOG)
    agent, log = logged_agent(tmp_path, [{"text": "answered"}])
    events = await run(agent, "hello")
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    assert log.problem is not None and "cannot be written safely" in log.problem


class FullDisk(Redactor):
    """A redactor in front of a disk that fills up after `writes` records."""

    def __init__(self, writes: int) -> None:
        super().__init__()
        self.writes = writes

    def redact(self, text: str) -> str:
        self.writes -= 1
        if self.writes < 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().redact(text)


async def test_a_write_failing_mid_turn_turns_the_log_off_and_says_so_once(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    replies = [{"tool_calls": [call("list_dir")]}, {"text": "done anyway"}, {"text": "again"}]
    agent, log = logged_agent(tmp_path, replies)
    log.redactor = FullDisk(writes=11)  # the sections, and a few events
    events = await run(agent, "hello")
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "done anyway"
    assert log.problem == (
        f"could not write {tmp_path / LOG}: No space left on device; "
        "the debug log is off for this message"
    )
    written = read_log(tmp_path)  # what got out before the disk filled up is readable
    assert "REQUEST step 1" in section(written, 6) and "FINISH" not in written

    log.redactor = Redactor()  # the disk has room again: the next message is logged
    await run(agent, "next")
    assert log.problem is None and "FINISH done" in read_log(tmp_path)


async def test_a_provider_error_is_logged(tmp_path: Path, logged_agent: LoggedAgent) -> None:
    agent, _ = logged_agent(tmp_path, [ProviderError("the provider fell over; try again")])
    await run(agent, "hello")
    events = section(read_log(tmp_path), 6)
    assert "ERROR: the provider fell over; try again" in events
    assert "FINISH error after 1 step: the provider fell over" in events


def request() -> ModelRequest:
    return ModelRequest("system text", [{"role": "user", "content": "hi"}], [])


def test_retries_are_logged_and_the_failed_attempts_text_marked(tmp_path: Path) -> None:
    log = DebugLog(tmp_path, Redactor(), call_parameters={"model": "m", "max_steps": 3})
    log.begin_turn("hi", [])
    for event in (TurnStarted("hi"), StepStarted(1)):
        log.emit(event)
    log.record_request(1, request())
    log.emit(TextDelta("partial "))
    log.emit(Retrying(2, 1.5, "rate limited by openai, retrying in 1.5 s (attempt 2 of 5)"))
    log.emit(TextDelta("whole answer"))
    log.emit(StepFinished(1))
    log.emit(TurnFinished("done", "whole answer", 1))
    text = read_log(tmp_path)
    assert labels(text) == [
        "TURN-START",
        "STEP-START",
        "REQUEST",
        "TEXT-DELTA",
        "RETRY",
        "TEXT-DELTA",
        "STEP-FINISH",
        "FINISH",
    ]
    assert "(from the failed attempt: discarded)\n    partial" in text
    assert "RETRY attempt 2 in 1.5s: rate limited by openai" in text
    assert "(no layer breakdown" in section(text, 2)


def test_a_turn_that_sent_nothing_still_leaves_a_readable_log(tmp_path: Path) -> None:
    log = DebugLog(tmp_path, Redactor())
    log.begin_turn("hi", [])
    log.emit(TurnStarted("hi"))
    log.emit(TurnFinished("cancelled", "", 0, message="interrupted"))
    text = read_log(tmp_path)
    assert "no request was sent" in text
    assert parse_headings(text) == [(6, "LIVE STREAM EVENTS")]
    assert labels(text) == ["TURN-START", "FINISH"]


async def test_a_tool_that_raises_fails_its_call_and_its_traceback_is_logged(
    tmp_path: Path, logged_agent: LoggedAgent
) -> None:
    from zizou.tools import Access, Tool, ToolArgs, ToolContext, ToolResult

    class NoArgs(ToolArgs):
        pass

    class Broken(Tool[NoArgs]):
        """Raises."""

        name = "broken"
        summary = "Raises."
        Args = NoArgs

        def access(self, args: NoArgs, ctx: ToolContext) -> Access:
            return Access("read")

        def work(self, args: NoArgs, access: Access, ctx: ToolContext) -> ToolResult:
            raise KeyError("a bug in the tool")

    agent, _ = logged_agent(tmp_path, [{"tool_calls": [{"name": "broken"}]}, {"text": "ok"}])
    agent.runner.registry.register(Broken())
    events = await run(agent, "go")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.ok and "broken failed unexpectedly: KeyError" in finished.output
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"
    log = section(read_log(tmp_path), 6)
    assert "LOG ERROR zizou.agent.calls: the tool broken raised" in log
    assert "Traceback (most recent call last)" in log and "a bug in the tool" in log


def test_reasoning_is_gathered_apart_from_the_text_and_a_retried_one_marked(
    tmp_path: Path,
) -> None:
    log = DebugLog(tmp_path, Redactor(), call_parameters={"model": "m", "max_steps": 3})
    log.begin_turn("hi", [])
    log.emit(StepStarted(1))
    log.record_request(1, request())
    log.emit(ReasoningDelta("a first "))
    log.emit(Retrying(2, 0.0, "the stream ended early, retrying now"))
    for piece in ("the key is ", "sk-abcdef", "0123456789abcdef0123 ", "and then"):
        log.emit(ReasoningDelta(piece))
    log.emit(TextDelta("Done."))
    log.emit(TurnFinished("done", "Done.", 1))
    text = read_log(tmp_path)
    assert labels(text)[-5:] == [
        "REASONING-DELTA",
        "RETRY",
        "REASONING-DELTA",
        "TEXT-DELTA",
        "FINISH",
    ]
    assert "REASONING-DELTA 1 piece over" in text and "(from the failed attempt: discarded)" in text
    assert "REASONING-DELTA 4 pieces over" in text and "\n    Done.\n" in text
    assert "[REDACTED]" in text and "0123456789abcdef" not in text  # whole, across pieces
