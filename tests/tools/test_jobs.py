"""Commands as jobs: in the background at once or after the threshold, followed, read, stopped,
and never left running once the table is closed."""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from pathlib import Path

import pytest
from waiting import scaled

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules
from zizou.contracts.protocols import Approval, ToolCall
from zizou.tools import default_registry
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.job_kill import TOOL as JOB_KILL
from zizou.tools.job_kill import JobKillArgs
from zizou.tools.job_output import TOOL as JOB_OUTPUT
from zizou.tools.job_output import JobOutputArgs
from zizou.tools.jobs import JobTable, next_job_number
from zizou.tools.jobs import table as job_table
from zizou.tools.read_output import TOOL as READ_OUTPUT
from zizou.tools.read_output import ReadOutputArgs
from zizou.tools.run_bash import TOOL, RunBashArgs

SERVER = "echo $$ > pids; echo listening; while true; do sleep 0.1; done"


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_gone(pids: list[int]) -> list[int]:
    deadline = time.monotonic() + scaled(5)
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


async def pids_of(root: Path, name: str = "pids", count: int = 1) -> list[int]:
    deadline = time.monotonic() + scaled(10)
    while True:
        path = root / name
        found = path.read_text().split() if path.exists() else []
        if len(found) >= count:
            return [int(pid) for pid in found]
        assert time.monotonic() < deadline, f"{name} never had {count} pids"
        await asyncio.sleep(0.02)


async def bash(ctx: ToolContext, command: str, **more: object) -> ToolResult:
    return await TOOL.run(RunBashArgs.model_validate({"command": command, **more}), ctx)


def job_id(output: str) -> str:
    found = re.search(r"job (c\d+)", output)
    assert found, output
    return found.group(1)


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(root=root, jobs=JobTable(background_after_s=60))


async def test_a_background_command_returns_at_once_with_its_id_and_first_lines(
    root: Path, ctx: ToolContext
) -> None:
    result = await bash(ctx, SERVER, background=True)
    assert result.ok
    lines = result.output.splitlines()
    assert lines[0] == "job c1: running in the background"
    assert "listening" in lines
    assert 'job_output(id="c1"' in result.output and 'job_kill(id="c1")' in result.output
    [pid] = await pids_of(root)
    assert alive(pid)
    assert [job.id for job in ctx.jobs.running()] == ["c1"]
    ctx.jobs.close()
    assert wait_gone([pid]) == []


async def test_job_output_follows_a_job_from_a_line_and_waits_for_its_end(
    ctx: ToolContext,
) -> None:
    started = await bash(ctx, "echo one; sleep 0.5; echo two; echo three", background=True)
    assert "one" in started.output
    ended = await JOB_OUTPUT.run(JobOutputArgs(id="c1", since_line=1, wait_s=20), ctx)
    assert ended.output.splitlines() == [
        "job c1: exit code 0 · echo one; sleep 0.5; echo two; echo three",
        "[lines 2-3 of 3]",
        "two",
        "three",
    ]
    again = await JOB_OUTPUT.run(JobOutputArgs(id="c1", since_line=3), ctx)
    assert again.output.splitlines()[1] == "[no new lines: the output has 3 lines]"
    whole = await JOB_OUTPUT.run(JobOutputArgs(id="c1"), ctx)
    assert whole.output.splitlines()[1:] == ["[lines 1-3 of 3]", "one", "two", "three"]


async def test_job_output_of_a_running_job_names_the_call_for_the_next_lines(
    ctx: ToolContext,
) -> None:
    await bash(ctx, "seq 1 3; sleep 30", background=True)
    result = await JOB_OUTPUT.run(JobOutputArgs(id="c1"), ctx)
    assert result.output.splitlines()[0].startswith("job c1: running for")
    assert result.output.endswith('[next: job_output(id="c1", since_line=3) gives the new lines]')
    ctx.jobs.close()


async def test_job_kill_ends_the_whole_group_and_says_how_it_ended(
    root: Path, ctx: ToolContext
) -> None:
    command = "sleep 1000 & echo $! > pids; sleep 1000 & echo $! >> pids; echo started; wait"
    await bash(ctx, command, background=True)
    pids = await pids_of(root, count=2)
    result = await JOB_KILL.run(JobKillArgs(id="c1"), ctx)
    assert result.ok
    assert result.output.startswith("job c1: killed (its whole process group)")
    assert wait_gone(pids) == []
    again = await JOB_KILL.run(JobKillArgs(id="c1"), ctx)
    assert again.output.startswith("[job c1 had already ended]")


async def test_an_unknown_id_is_refused_with_the_ids_there_are(ctx: ToolContext) -> None:
    await bash(ctx, "seq 1 5000")
    for tool, args in (
        (JOB_OUTPUT, JobOutputArgs(id="c9")),
        (JOB_KILL, JobKillArgs(id="c9")),
        (READ_OUTPUT, ReadOutputArgs(id="c9")),
    ):
        result = await tool.run(args, ctx)  # type: ignore[attr-defined]
        assert not result.ok
        assert "no job or kept output 'c9' (ids kept: c1)" in result.output


async def test_a_foreground_command_past_the_threshold_moves_to_the_background(
    root: Path,
) -> None:
    ctx = ToolContext(root=root, jobs=JobTable(background_after_s=0.5))
    result = await bash(ctx, "echo $$ > pids; echo working; sleep 1000", timeout_s=600)
    assert result.ok
    lines = result.output.splitlines()
    assert lines[0] == (
        "job c1: still running after 0.5 s, so it was moved to the background and the turn goes on"
    )
    assert "[it is killed at its timeout (600 s), by job_kill, or when zizou exits]" in lines
    assert "working" in lines
    [pid] = await pids_of(root)
    assert alive(pid)
    assert [job.id for job in ctx.jobs.background()] == ["c1"]
    assert ctx.jobs.close() == ["c1 (echo $$ > pids; echo working; sleep 1000)"]
    assert wait_gone([pid]) == []


async def test_a_moved_command_is_still_killed_at_its_timeout(root: Path) -> None:
    ctx = ToolContext(root=root, jobs=JobTable(background_after_s=0.2))
    await bash(ctx, "echo $$ > pids; sleep 1000", timeout_s=1)
    [pid] = await pids_of(root)
    result = await JOB_OUTPUT.run(JobOutputArgs(id="c1", wait_s=20), ctx)
    assert result.output.startswith("job c1: timed out after 1 s; its process group was killed")
    assert wait_gone([pid]) == []


async def test_a_threshold_of_zero_never_moves_a_command(root: Path) -> None:
    ctx = ToolContext(root=root, jobs=JobTable(background_after_s=0))
    result = await bash(ctx, "sleep 0.5; echo done")
    assert result.output == "exit code 0\ndone"
    assert ctx.jobs.ids() == []  # an output shown whole is not kept


async def test_a_background_job_has_no_timeout_unless_one_is_given(ctx: ToolContext) -> None:
    assert RunBashArgs(command="x", background=True).timeout is None
    assert RunBashArgs(command="x", background=True, timeout_s=5).timeout == 5
    assert RunBashArgs(command="x").timeout == 120


async def test_cancelling_the_call_kills_the_job_it_started(root: Path, ctx: ToolContext) -> None:
    task = asyncio.create_task(bash(ctx, SERVER, background=True))
    [pid] = await pids_of(root)
    task.cancel()
    assert (await task).output.startswith("[interrupted after")  # so it hears of it after all
    assert wait_gone([pid]) == []
    assert ctx.jobs.ids() == []


async def test_read_output_reads_any_line_of_a_cut_output(ctx: ToolContext) -> None:
    result = await bash(ctx, "seq 1 200000")
    assert "of 200,000 lines shown (head and tail)" in result.output
    line = await READ_OUTPUT.run(ReadOutputArgs(id="c1", start_line=150_000, end_line=150_000), ctx)
    assert line.output == "[output c1: line 150,000 of 200,000]\n150000"
    many = await READ_OUTPUT.run(ReadOutputArgs(id="c1", start_line=10), ctx)
    lines = many.output.splitlines()
    assert lines[0] == "[output c1: lines 10-2,009 of 200,000]"
    assert lines[1] == "10" and lines[-2] == "2009"
    assert lines[-1] == '[more: read_output(id="c1", start_line=2010, end_line=200000) goes on]'
    past = await READ_OUTPUT.run(ReadOutputArgs(id="c1", start_line=300_000), ctx)
    assert past.output == "[output c1 has 200,000 lines; line 300,000 is past its end]"
    with pytest.raises(ValueError, match="before start_line"):
        ReadOutputArgs(id="c1", start_line=5, end_line=2)


async def test_a_long_line_is_shown_cut_with_its_length(ctx: ToolContext) -> None:
    result = await bash(ctx, "head -c 9000 /dev/zero | tr '\\0' x; echo; echo end")
    lines = result.output.splitlines()
    assert lines[1].startswith("[every line shown, but line was cut at 4,000 characters")
    assert lines[2] == "x" * 4000 + "… [line 1 is 9,000 bytes long]"
    assert lines[3] == "end"
    whole = await READ_OUTPUT.run(ReadOutputArgs(id="c1", start_line=1, end_line=1), ctx)
    assert whole.output.splitlines()[1] == "x" * 9000


async def test_only_cut_outputs_are_kept_and_only_the_newest(
    ctx: ToolContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(job_table, "KEEP_OUTPUTS", 2)
    await bash(ctx, "echo short")
    for _ in range(3):
        await bash(ctx, "seq 1 5000")
    assert ctx.jobs.ids() == ["c3", "c4"]
    kept = [job.spool.path for job in (ctx.jobs.get("c3"), ctx.jobs.get("c4")) if job]
    assert all(path is not None and path.exists() for path in kept)
    ctx.jobs.close()
    assert not any(path is not None and path.exists() for path in kept)


async def test_a_new_table_takes_over_the_jobs_of_the_old_one(root: Path, ctx: ToolContext) -> None:
    await bash(ctx, SERVER, background=True)
    [pid] = await pids_of(root)
    new = JobTable()
    new.take_over(ctx.jobs)
    assert ctx.jobs.close() == [] and alive(pid)  # the old table ends nothing any more
    assert new.get("c1") is not None
    assert (await bash(ToolContext(root=root, jobs=new), "seq 1 5000")).output.count('id="c2"')
    assert new.close() == ["c1 (echo $$ > pids; echo listening; while true; do sleep 0.1; done)"]
    assert wait_gone([pid]) == []


async def test_a_background_command_asks_as_a_foreground_one_does(
    root: Path, ctx: ToolContext
) -> None:
    approver = ScriptedApprover([Approval("deny", "not now")])
    runner = CallRunner(default_registry(), ctx, CallGates.of(approver, Rules()))
    arguments = json.dumps({"command": "touch ran", "background": True})
    call = runner.parse(ToolCall("call_1", "run_bash", arguments))
    items = [item async for item in runner.run(call)]
    [request] = approver.requests
    assert request.summary == "touch ran" and request.kind == "exec"
    assert json.loads(request.detail or "{}") == {"command": "touch ran", "background": True}
    assert isinstance(items[-1], ToolResult) and not items[-1].ok
    assert not (root / "ran").exists() and ctx.jobs.ids() == []
    touch = Rules(bash_prefixes=("touch",))
    allowed = CallRunner(default_registry(), ctx, CallGates.of(ScriptedApprover(), touch))
    items = [item async for item in allowed.run(allowed.parse(call.call))]
    assert isinstance(items[-1], ToolResult) and items[-1].ok


async def test_job_tools_never_ask(ctx: ToolContext) -> None:
    await bash(ctx, "sleep 30", background=True)
    approver = ScriptedApprover()
    runner = CallRunner(default_registry(), ctx, CallGates.of(approver, Rules()))
    for name, arguments in (
        ("job_output", {"id": "c1"}),
        ("read_output", {"id": "c1"}),
        ("job_kill", {"id": "c1"}),
    ):
        call = runner.parse(ToolCall("call_1", name, json.dumps(arguments)))
        items = [item async for item in runner.run(call)]
        assert isinstance(items[-1], ToolResult) and items[-1].ok, items[-1]
    assert approver.requests == []
    job = ctx.jobs.get("c1")
    assert job is not None and job.state == "killed"


def test_the_next_job_number_is_past_every_id_named() -> None:
    texts = ["job c3: running", 'read_output(id="c12", start_line=1)', "abc12 job c", "c99"]
    assert next_job_number(texts) == 13
    assert next_job_number([]) == 1


async def test_a_table_numbers_from_its_first_id_and_a_take_over_keeps_the_higher(
    root: Path,
) -> None:
    old, new = JobTable(first_id=7), JobTable(first_id=3)
    new.take_over(old)
    result = await bash(ToolContext(root=root, jobs=new), "seq 1 5000")
    assert 'read_output(id="c7"' in result.output


def test_closing_a_table_no_one_started_anything_in_is_harmless() -> None:
    assert JobTable().close() == []
