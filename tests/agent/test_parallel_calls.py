"""A step's read-only calls run side by side: overlap proven by calls that wait on each other
(sequential, they would never finish), results in call order, barriers, serial approvals, and
cancellation that leaves a valid history and nothing running."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any, ClassVar

import pytest
from scripted_agent import assert_history_valid, call
from waiting import LIMIT_S, until

from zizou.agent.approvers import ScriptedApprover, SerialApprover
from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.permissions import Rules
from zizou.agent.prompt import PromptBuilder
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import (
    AnyEvent,
    Event,
    PermissionRequested,
    StepFinished,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
)
from zizou.contracts.protocols import Approval, Approver, PermissionRequest, ToolCall
from zizou.contracts.state import SessionState
from zizou.providers.fake import ScriptedModel
from zizou.tools import Access, Registry, Tool, ToolArgs, ToolContext, ToolResult


class Board:
    """What the test tools share: named signals, and a log of what started and ended."""

    def __init__(self) -> None:
        self.signals: dict[str, asyncio.Event] = {}
        self.log: list[str] = []

    def signal(self, name: str) -> asyncio.Event:
        return self.signals.setdefault(name, asyncio.Event())


class GateArgs(ToolArgs):
    key: str
    wait_for: str | None = None  # a signal to wait for before ending
    sets: str | None = None  # a signal to give once started


class Gate(Tool[GateArgs]):
    """A call that logs its start and end, and may give or wait for a signal."""

    name = "gate"
    summary = "Wait for a signal, or give one."
    Args = GateArgs
    label_field = "key"
    access_kind: ClassVar[str] = "read"
    side_by_side: ClassVar[bool] = True

    def __init__(self, board: Board) -> None:
        self.board = board

    def access(self, args: GateArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    async def execute(self, args: GateArgs, access: Access, ctx: ToolContext) -> ToolResult:
        self.board.log.append(f"start {args.key}")
        try:
            if args.sets:
                self.board.signal(args.sets).set()
            if args.wait_for:
                await self.board.signal(args.wait_for).wait()
            await asyncio.sleep(0)
        except asyncio.CancelledError:
            self.board.log.append(f"cancelled {args.key}")
            raise
        self.board.log.append(f"end {args.key}")
        return ToolResult(True, f"{args.key} done")


class WriteGate(Gate):
    name = "write_gate"
    access_kind: ClassVar[str] = "write"
    side_by_side: ClassVar[bool] = False

    def access(self, args: GateArgs, ctx: ToolContext) -> Access:
        return Access(kind="write")


class AskArgs(ToolArgs):
    key: str


class Ask(Tool[AskArgs]):
    """Touches something it does not declare: every call asks the approver."""

    name = "ask"
    summary = "Ask."
    Args = AskArgs
    label_field = "key"

    def work(self, args: AskArgs, access: Access, ctx: ToolContext) -> ToolResult:
        return ToolResult(True, f"{args.key} asked")


class DeckLike(Tool[AskArgs]):
    """A read-only call that runs a child call through a runner of its own, over the main
    runner's approver, as a deck's run does."""

    name = "deck_like"
    summary = "Run a child call that asks."
    Args = AskArgs
    label_field = "key"
    access_kind: ClassVar[str] = "read"
    side_by_side: ClassVar[bool] = True

    def __init__(self, board: Board, approver: Approver) -> None:
        self.board = board
        self.approver = approver

    def access(self, args: AskArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    async def execute(self, args: AskArgs, access: Access, ctx: ToolContext) -> ToolResult:
        registry = Registry()
        registry.register(Ask())
        child = CallRunner(registry, ctx, CallGates.of(self.approver, Rules()))
        parsed = child.parse(call_of("ask", args.key))
        result = ToolResult.error("no result")
        async for item in child.run(parsed):
            if isinstance(item, PermissionRequested):
                self.board.log.append(f"asking {args.key}")
            elif isinstance(item, ToolResult):
                result = item
        return result


def call_of(name: str, key: str) -> ToolCall:
    return ToolCall(id=f"child-{key}", name=name, arguments=f'{{"key": "{key}"}}')


class HeldApprover:
    """Says yes to each request once the test releases it; counts the asks open at once."""

    def __init__(self) -> None:
        self.requests: list[PermissionRequest] = []
        self.release: list[asyncio.Event] = []
        self.open = 0
        self.most_open = 0

    async def ask(self, request: PermissionRequest) -> Approval:
        self.requests.append(request)
        gate = asyncio.Event()
        self.release.append(gate)
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        try:
            await gate.wait()
        finally:
            self.open -= 1
        return Approval("once")


def make(
    root: Path,
    replies: list[Any],
    board: Board,
    approver: Approver | None = None,
    max_steps: int = 5,
    finished: Callable[[], bool] | None = None,
) -> Agent:
    approver = approver or ScriptedApprover()
    registry = Registry()
    for tool in (Gate(board), WriteGate(board)):
        registry.register(tool)
    state = SessionState(Conversation())
    ctx = ToolContext(root=root, state=state)
    runner = CallRunner(registry, ctx, CallGates.of(approver, Rules()))
    registry.register(DeckLike(board, runner.approver))
    prompt = PromptBuilder(root, registry, state, write_compiled=False)
    config = AgentConfig(max_steps=max_steps)
    model = ScriptedModel(replies)
    return Agent(model, runner, prompt, state.conversation, config, finished=finished)


async def run(agent: Agent, text: str = "go") -> list[AnyEvent]:
    async def collect() -> list[AnyEvent]:
        return [event async for event in agent.run_turn(text)]

    return await asyncio.wait_for(collect(), LIMIT_S)  # a sequential run would hang: fail it


def tool_results(agent: Agent) -> list[tuple[str, str]]:
    return [
        (m["tool_call_id"], m["content"])
        for m in agent.conversation.messages
        if m["role"] == "tool"
    ]


def step_calls(*calls: dict[str, Any]) -> list[Any]:
    return [{"tool_calls": list(calls)}, {"text": "done", "pieces": 1}]


async def test_two_reads_overlap_and_their_results_keep_the_call_order(tmp_path: Path) -> None:
    board = Board()
    # `a` ends only once `b` has started: run one after the other, it would wait forever.
    replies = step_calls(
        call("gate", key="a", wait_for="b-started"), call("gate", key="b", sets="b-started")
    )
    agent = make(tmp_path, replies, board)
    events = await run(agent)
    started = [e.call_id for e in events if isinstance(e, ToolCallStarted)]
    finished = [e.call_id for e in events if isinstance(e, ToolCallFinished)]
    assert finished == list(reversed(started))  # each shown as it ended: `b` first
    assert [call_id for call_id, _ in tool_results(agent)] == started  # stored in call order
    assert [content for _, content in tool_results(agent)] == ["a done", "b done"]
    kinds = [type(e).__name__ for e in events]
    assert kinds.index("StepFinished") > max(
        i for i, k in enumerate(kinds) if k == "ToolCallFinished"
    )
    assert_history_valid(agent.conversation.messages)
    assert isinstance(events[-1], TurnFinished) and events[-1].reason == "done"


async def test_a_write_is_a_barrier_between_groups_of_reads(tmp_path: Path) -> None:
    board = Board()
    replies = step_calls(
        call("gate", key="a", wait_for="b"),
        call("gate", key="b", sets="b"),
        call("write_gate", key="w"),
        call("gate", key="c", wait_for="d"),
        call("gate", key="d", sets="d"),
    )
    agent = make(tmp_path, replies, board)
    await run(agent)
    log = board.log
    assert log.index("start w") > max(log.index("end a"), log.index("end b"))
    assert log.index("end w") < min(log.index("start c"), log.index("start d"))
    assert [content for _, content in tool_results(agent)] == [f"{k} done" for k in "abwcd"]


async def test_at_most_four_run_at_once(tmp_path: Path) -> None:
    board = Board()
    replies = step_calls(*(call("gate", key=str(n), wait_for="go") for n in range(5)))
    agent = make(tmp_path, replies, board)
    turn = asyncio.create_task(run(agent))
    await until(lambda: len(board.log) == 4, "four calls to start")
    for _ in range(20):
        await asyncio.sleep(0)
    assert board.log == [f"start {n}" for n in range(4)]  # the fifth waits for a free place
    board.signal("go").set()
    await turn
    assert "start 4" in board.log
    assert [content for _, content in tool_results(agent)] == [f"{n} done" for n in range(5)]


async def test_asks_of_calls_side_by_side_come_one_at_a_time(tmp_path: Path) -> None:
    board = Board()
    approver = HeldApprover()
    replies = step_calls(call("deck_like", key="x"), call("deck_like", key="y"))
    agent = make(tmp_path, replies, board, approver=approver)
    turn = asyncio.create_task(run(agent))
    await until(lambda: {"asking x", "asking y"} <= set(board.log), "both children to ask")
    for _ in range(20):
        await asyncio.sleep(0)
    assert len(approver.requests) == 1  # the second waits for the first answer
    approver.release[0].set()
    await until(lambda: len(approver.requests) == 2, "the second ask")
    approver.release[1].set()
    await turn
    assert approver.most_open == 1
    assert [content for _, content in tool_results(agent)] == ["x asked", "y asked"]


def test_the_approver_is_wrapped_once(tmp_path: Path) -> None:
    raw = ScriptedApprover()
    ctx = ToolContext(root=tmp_path)
    runner = CallRunner(Registry(), ctx, CallGates.of(raw, Rules()))
    child = CallRunner(Registry(), ctx, CallGates.of(runner.approver, Rules()))
    assert isinstance(runner.approver, SerialApprover) and runner.approver.inner is raw
    assert child.approver is runner.approver


async def test_the_loop_guard_stops_the_step_after_the_calls_before_it(tmp_path: Path) -> None:
    board = Board()
    same = call("gate", key="same")
    agent = make(tmp_path, step_calls(same, same, same, call("gate", key="after")), board)
    events = await run(agent)
    assert board.log.count("start same") == 2 and "start after" not in board.log
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "loop_guard"
    assert_history_valid(agent.conversation.messages)


async def test_unknown_tools_in_a_row_stop_the_turn(tmp_path: Path) -> None:
    board = Board()
    calls = [call("gate", key="a"), *(call(f"nope{n}") for n in range(3)), call("gate", key="b")]
    agent = make(tmp_path, step_calls(*calls), board)
    events = await run(agent)
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "loop_guard"
    assert "do not exist" in (finished.message or "") and "start b" not in board.log
    assert_history_valid(agent.conversation.messages)


async def test_the_finished_hook_ends_the_turn_after_a_step_of_reads(tmp_path: Path) -> None:
    board = Board()
    replies = step_calls(call("gate", key="a", wait_for="b"), call("gate", key="b", sets="b"))
    agent = make(tmp_path, replies, board, finished=lambda: "end b" in board.log)
    events = await run(agent)
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and (finished.reason, finished.steps) == ("done", 1)


async def test_one_call_yields_the_same_events_as_before(tmp_path: Path) -> None:
    board = Board()
    agent = make(tmp_path, step_calls(call("gate", key="a")), board)
    events = await run(agent)
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "TurnStarted",
        "StepStarted",
        "StepPlanned",
        "ModelReplied",
        "ToolCallStarted",
        "ToolCallFinished",
        "StepFinished",
        "StepStarted",
        "StepPlanned",
        "TextDelta",
        "ModelReplied",
        "StepFinished",
        "TurnFinished",
    ]


async def _cancel_mid_step(
    tmp_path: Path, calls: list[dict[str, Any]], started: int
) -> tuple[Agent, Board, list[Event]]:
    board = Board()
    agent = make(tmp_path, step_calls(*calls), board)
    seen: list[Event] = []

    async def consume() -> None:
        async for event in agent.run_turn("go"):
            seen.append(event)

    turn = asyncio.create_task(consume())
    await until(
        lambda: sum(line.startswith("start") for line in board.log) == started, "the calls to start"
    )
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    return agent, board, seen


async def test_cancelling_mid_step_cancels_every_call_and_keeps_the_history_valid(
    tmp_path: Path,
) -> None:
    calls = [
        call("gate", key="a", wait_for="never"),
        call("gate", key="b", wait_for="never"),
        call("write_gate", key="w"),
    ]
    agent, board, seen = await _cancel_mid_step(tmp_path, calls, 2)
    assert {"cancelled a", "cancelled b"} <= set(board.log) and "start w" not in board.log
    assert asyncio.all_tasks() == {asyncio.current_task()}  # nothing left running
    assert_history_valid(agent.conversation.messages)
    assert len(tool_results(agent)) == 3
    assert isinstance(seen[-2], StepFinished)
    assert isinstance(seen[-1], TurnFinished) and seen[-1].reason == "cancelled"


async def test_a_call_that_finished_before_the_cancel_keeps_its_result(tmp_path: Path) -> None:
    calls = [call("gate", key="a", wait_for="never"), call("gate", key="b")]
    board = Board()
    agent = make(tmp_path, step_calls(*calls), board)
    seen: list[Event] = []

    async def consume() -> None:
        async for event in agent.run_turn("go"):
            seen.append(event)

    turn = asyncio.create_task(consume())
    await until(lambda: any(isinstance(e, ToolCallFinished) for e in seen), "b to finish")
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    results = tool_results(agent)
    assert [content for _, content in results][1] == "b done"  # in call order, after `a`'s
    assert "stopped" in results[0][1]
    assert_history_valid(agent.conversation.messages)


async def test_closing_the_turn_early_stops_the_calls_too(tmp_path: Path) -> None:
    board = Board()
    calls = [call("gate", key="a", wait_for="never"), call("gate", key="b", wait_for="never")]
    agent = make(tmp_path, step_calls(*calls), board)
    turn: AsyncGenerator[AnyEvent, None] = agent.run_turn("go")
    async for event in turn:
        if isinstance(event, ToolCallStarted):
            break
    await turn.aclose()
    assert asyncio.all_tasks() == {asyncio.current_task()}
    assert_history_valid(agent.conversation.messages)
