"""The tool contract: a call is parsed and resolved once, the approval and the work share that
resolved call, policy follows the declared access, and tool work runs off the event loop."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from pathlib import Path

import pytest

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner, RunnerItem
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules
from zizou.contracts.events import PermissionDecided, PermissionRequested, ToolProgress
from zizou.contracts.protocols import Approval, PermissionRequest, ToolCall
from zizou.session.unattended import HeadlessApprover
from zizou.tools import Access, Registry, Tool, ToolArgs, ToolContext, ToolResult, default_registry
from zizou.tools.base import file_access


async def run_call(runner: CallRunner, name: str, arguments: str) -> list[RunnerItem]:
    call = ToolCall("call_1", name, arguments)
    return [item async for item in runner.run(runner.parse(call))]


def result_of(items: list[RunnerItem]) -> ToolResult:
    result = items[-1]
    assert isinstance(result, ToolResult)
    return result


class SwappingApprover:
    """Approves, but first swaps the approved file's directory for a symlink elsewhere."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.asked: list[PermissionRequest] = []

    async def ask(self, request: PermissionRequest) -> Approval:
        self.asked.append(request)
        os.rename(self.root / "a", self.root / "a_before")
        os.symlink("c", self.root / "a")
        return Approval("once")


async def test_a_write_lands_in_the_file_the_approval_showed_even_after_a_swap(
    tmp_path: Path,
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "c").mkdir()
    approver = SwappingApprover(tmp_path)
    runner = CallRunner(
        default_registry(), ToolContext(root=tmp_path), CallGates.of(approver, Rules())
    )
    args = '{"path": "a/.env.local", "content": "TOKEN=1\\n"}'  # protected: it asks
    result = result_of(await run_call(runner, "write_file", args))
    assert [r.summary for r in approver.asked] == ["write_file a/.env.local"]
    assert result.ok, result.output
    assert (tmp_path / "a_before" / ".env.local").read_text() == "TOKEN=1\n"
    assert not (tmp_path / "c" / ".env.local").exists()


class SilentArgs(ToolArgs):
    pass


class Silent(Tool[SilentArgs]):
    """A tool that says nothing about what it touches."""

    name = "silent"
    summary = "Does something it does not declare."
    Args = SilentArgs
    label_field = None
    ran = 0

    def work(self, args: SilentArgs, access: Access, ctx: ToolContext) -> ToolResult:
        type(self).ran += 1
        return ToolResult(ok=True, output="done")


def silent_registry() -> Registry:
    registry = Registry()
    registry.register(Silent())
    return registry


async def test_a_tool_that_declares_no_access_is_asked_for_and_refused_headless(
    tmp_path: Path,
) -> None:
    ctx = ToolContext(root=tmp_path)
    Silent.ran = 0
    asking = ScriptedApprover([Approval("once")])
    items = await run_call(
        CallRunner(silent_registry(), ctx, CallGates.of(asking, Rules())), "silent", "{}"
    )
    [request] = [i for i in items if isinstance(i, PermissionRequested)]
    assert "does not declare what it touches" in asking.requests[0].reason
    assert request.tool == "silent" and result_of(items).ok and Silent.ran == 1

    headless = CallRunner(silent_registry(), ctx, CallGates.of(HeadlessApprover(), Rules()))
    refused = result_of(await run_call(headless, "silent", "{}"))
    assert not refused.ok and "--allow silent" in refused.output and Silent.ran == 1

    allowed = CallRunner(
        silent_registry(),
        ctx,
        CallGates.of(HeadlessApprover(), Rules(allowed_tools=frozenset({"silent"}))),
    )
    items = await run_call(allowed, "silent", "{}")
    [decided] = [i for i in items if isinstance(i, PermissionDecided)]
    assert decided.by == "--allow" and result_of(items).ok and Silent.ran == 2


class SlowArgs(ToolArgs):
    pass


class Slow(Tool[SlowArgs]):
    """Blocks its thread for a while, saying how far it is."""

    name = "slow"
    summary = "Blocks for a while."
    Args = SlowArgs

    def __init__(self, release: threading.Event) -> None:
        self.release = release

    def access(self, args: SlowArgs, ctx: ToolContext) -> Access:
        return Access("read")

    def work(self, args: SlowArgs, access: Access, ctx: ToolContext) -> ToolResult:
        ctx.progress("started")
        if not self.release.wait(10):
            return ToolResult.error("never released")
        ctx.progress("released")
        return ToolResult(ok=True, output="slept")


async def test_blocking_tool_work_leaves_the_event_loop_free_and_reports_progress(
    tmp_path: Path,
) -> None:
    release = threading.Event()
    registry = Registry()
    registry.register(Slow(release))
    runner = CallRunner(
        registry, ToolContext(root=tmp_path), CallGates.of(ScriptedApprover(), Rules())
    )
    ticks: list[float] = []

    async def ticker() -> None:  # what the app's screen and keys need: the loop turning
        while not release.is_set():
            ticks.append(time.monotonic())
            if len(ticks) >= 5:
                release.set()
            await asyncio.sleep(0.01)

    items, _ = await asyncio.gather(run_call(runner, "slow", "{}"), ticker())
    assert len(ticks) >= 5  # the loop kept turning while the tool's thread was blocked
    progress = [i.text for i in items if isinstance(i, ToolProgress)]
    assert progress == ["started", "released"]
    assert result_of(items).output == "slept"


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("run_bash", {"command": "pytest -q"}, "pytest -q"),
        ("read_file", {"path": "a.py", "start_line": 3, "end_line": 9}, "a.py:3-9"),
        ("add_context", {"path": "a.py", "start_line": 3}, "a.py:3-"),
        ("grep", {"pattern": "TODO", "path": "src"}, "TODO"),
        ("repo_map", {"identifiers": ["parse_args"]}, "parse_args"),
        ("repo_map", {}, "the whole project"),
    ],
)
def test_a_call_is_labelled_by_its_tool_with_what_it_touches(
    tmp_path: Path, tool: str, arguments: dict[str, object], expected: str
) -> None:
    runner = CallRunner(
        default_registry(), ToolContext(root=tmp_path), CallGates.of(ScriptedApprover(), Rules())
    )
    parsed = runner.parse(ToolCall("c1", tool, json.dumps(arguments)))
    assert parsed.problem is None and parsed.label == expected
    assert runner.parse(ToolCall("c2", "nope", '{"x": 1}')).label == '{"x": 1}'


class SlowWriteArgs(ToolArgs):
    path: str


class SlowWrite(Tool[SlowWriteArgs]):
    """Writes through its handle after a pause, in its worker thread."""

    name = "slow_write"
    summary = "Writes slowly."
    Args = SlowWriteArgs

    def __init__(self) -> None:
        self.started = threading.Event()

    def access(self, args: SlowWriteArgs, ctx: ToolContext) -> Access:
        return file_access("write", ctx, args.path)

    def work(self, args: SlowWriteArgs, access: Access, ctx: ToolContext) -> ToolResult:
        self.started.set()
        time.sleep(0.3)  # the call is cancelled meanwhile; the thread cannot be
        access.handle().atomic_write(b"written whole\n")
        return ToolResult(ok=True, output="written")


async def test_a_cancelled_call_keeps_its_files_open_until_its_thread_is_done(
    tmp_path: Path,
) -> None:
    (tmp_path / "d").mkdir()
    tool = SlowWrite()
    registry = Registry()
    registry.register(tool)
    runner = CallRunner(
        registry, ToolContext(root=tmp_path), CallGates.of(ScriptedApprover(), Rules())
    )
    task = asyncio.create_task(run_call(runner, "slow_write", '{"path": "d/out.txt"}'))
    await asyncio.to_thread(tool.started.wait, 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (tmp_path / "d" / "out.txt").read_text() == "written whole\n"  # where it was meant


class WaitingPolicy:
    """A tool policy that takes its time (a settings hook running a command)."""

    def __init__(self, release: threading.Event) -> None:
        self.release = release
        self.released: bool | None = None

    def before_tool(self, name: str, arguments: dict[str, object], kind: str) -> None:
        self.released = self.release.wait(5)


async def test_a_slow_tool_policy_leaves_the_event_loop_free(tmp_path: Path) -> None:
    release = threading.Event()
    policy = WaitingPolicy(release)
    gates = CallGates.of(ScriptedApprover(), Rules(), policy=policy)
    runner = CallRunner(default_registry(), ToolContext(root=tmp_path), gates)

    async def ticker() -> None:  # the loop turns while the policy waits, and releases it
        for _ in range(5):
            await asyncio.sleep(0.01)
        release.set()

    items, _ = await asyncio.gather(run_call(runner, "list_dir", "{}"), ticker())
    assert policy.released is True
    assert result_of(items).ok
