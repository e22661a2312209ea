from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import time
from pathlib import Path

import pydantic
import pytest
from waiting import scaled

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.permissions import Rules
from zizou.contracts.protocols import ToolCall
from zizou.sandbox import Sandbox, detect
from zizou.tools import default_registry
from zizou.tools.base import ToolContext, ToolResult
from zizou.tools.run_bash import (
    MAX_STDIN_BYTES,
    TOOL,
    RunBashArgs,
    strip_terminal_controls,
)

TWO_SLEEPERS = "sleep 1000 & echo $! > pids; sleep 1000 & echo $! >> pids; wait"


async def bash(
    ctx: ToolContext, command: str, timeout_s: int = 20, stdin: str | None = None
) -> ToolResult:
    return await TOOL.run(RunBashArgs(command=command, timeout_s=timeout_s, stdin=stdin), ctx)


def alive(pid: int) -> bool:
    """A zombie (dead, not yet reaped by an init that may never reap it) counts as gone."""
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (ProcessLookupError, FileNotFoundError):
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def assert_all_gone(pids: list[int]) -> None:
    deadline = time.monotonic() + scaled(3)
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in pids if alive(pid)]


def read_pids(root: Path, count: int) -> list[int]:
    pids = [int(line) for line in (root / "pids").read_text().split()]
    assert len(pids) == count
    return pids


async def test_exit_code_line_and_ok(ctx: ToolContext) -> None:
    result = await bash(ctx, "echo hello")
    assert (result.ok, result.output) == (True, "exit code 0\nhello")
    failed = await bash(ctx, "echo oops >&2; exit 3")
    assert (failed.ok, failed.output) == (False, "exit code 3\noops")
    assert (await bash(ctx, "true")).output == "exit code 0\n(no output)"


async def test_killed_by_a_signal_is_named(ctx: ToolContext) -> None:
    result = await bash(ctx, "kill -KILL $$")
    assert result.output.startswith("exit code -9 (killed by SIGKILL)")


async def test_runs_in_the_project_root(root: Path, ctx: ToolContext) -> None:
    assert (await bash(ctx, "pwd -P")).output == f"exit code 0\n{os.path.realpath(root)}"


async def test_stdin_is_empty(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, "cat; read -r line || echo no input")
    assert result.output == "exit code 0\nno input"
    assert time.monotonic() - started < 5


async def test_timeout_kills_the_whole_group(root: Path, ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, TWO_SLEEPERS, timeout_s=1)
    assert time.monotonic() - started < 5
    assert not result.ok
    assert result.output.startswith("[timed out after 1 s; process group killed]")
    assert_all_gone(read_pids(root, 2))


async def test_cancellation_kills_the_group_and_says_how_long_it_ran(
    root: Path, ctx: ToolContext
) -> None:
    task = asyncio.create_task(bash(ctx, f"echo first words; {TWO_SLEEPERS}"))
    deadline = time.monotonic() + scaled(5)
    while len((root / "pids").read_text().split() if (root / "pids").exists() else []) < 2:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    task.cancel()
    result = await task  # it ran: the call answers how long, and what it printed
    assert not result.ok
    assert re.match(r"\[interrupted after \d+\.\d s: the turn was stopped", result.output)
    assert "first words" in result.output
    assert_all_gone(read_pids(root, 2))


async def test_background_jobs_holding_the_output_are_killed(root: Path, ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, "sleep 1000 & echo $! > pids; echo started")
    assert time.monotonic() - started < 5
    assert result.ok
    assert result.output == (
        "exit code 0\nstarted\n[background processes still holding the output were killed]"
    )
    assert_all_gone(read_pids(root, 1))


async def test_large_output_keeps_head_and_tail_and_says_how_to_read_the_rest(
    ctx: ToolContext,
) -> None:
    total = sum(len(f"{i}\n") for i in range(1, 320_001))
    assert total > 2_000_000
    result = await bash(ctx, "seq 1 320000")
    lines = result.output.splitlines()
    assert lines[0] == "exit code 0"
    note = re.fullmatch(
        r"\[([\d,]+) of 320,000 lines shown \(head and tail\); read the rest with "
        r'read_output\(id="(c\d+)", start_line=(\d+), end_line=(\d+)\)\]',
        lines[1],
    )
    assert note is not None, lines[1]
    shown, start, end = int(note[1].replace(",", "")), int(note[3]), int(note[4])
    assert lines[2:4] == ["1", "2"] and lines[-1] == "320000"
    assert lines[start + 1] == f"[... lines {start:,}-{end:,} not shown ...]"
    assert lines[start] == str(start - 1) and lines[start + 2] == str(end + 1)
    assert shown == (start - 1) + (320_000 - end) == len(lines) - 3
    assert len(result.output) < 31_000


async def test_terminal_escapes_are_stripped(ctx: ToolContext) -> None:
    command = r"printf '\033]0;title\007\033[1;31mred\033[0m\n50%%\r100%%\n'"
    assert (await bash(ctx, command)).output == "exit code 0\nred\n100%"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("\x1b[32mok\x1b[0m", "ok"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("a\x1b(Bb\x07c", "abc"),
        ("10%\r20%\r", "20%"),
        ("line\r\nnext", "line\nnext"),
        ("tab\tkept", "tab\tkept"),
    ],
)
def test_strip_terminal_controls(raw: str, clean: str) -> None:
    assert strip_terminal_controls(raw) == clean


async def test_secrets_are_not_in_the_child_environment(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOO_API_KEY", "sk-from-os")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-from-os")
    monkeypatch.setenv("ZIZOU_PLAIN", "kept")
    output = (await bash(ToolContext(root=root), "env")).output
    assert "ZIZOU_PLAIN=kept" in output
    assert "PATH=" in output
    assert "FOO_API_KEY" not in output
    assert "GITHUB_TOKEN" not in output
    given = {"PATH": os.environ["PATH"], "FOO_API_KEY": "sk-given", "KEEP": "1"}
    output = (await bash(ToolContext(root=root, env=given), "env")).output
    assert "KEEP=1" in output
    assert "sk-given" not in output


def test_access_is_exec_with_the_command(ctx: ToolContext) -> None:
    access = TOOL.access(RunBashArgs(command="ls -la"), ctx)
    assert (access.kind, access.command, access.paths) == ("exec", "ls -la", ())


def test_timeout_bounds() -> None:
    assert RunBashArgs(command="x").timeout_s == 120
    for bad in (0, 601):
        with pytest.raises(pydantic.ValidationError):
            RunBashArgs(command="x", timeout_s=bad)


async def test_a_running_command_reports_its_latest_line_as_progress(ctx: ToolContext) -> None:
    lines: list[str] = []
    ctx.emit = lines.append
    result = await bash(ctx, "echo first; sleep 0.4; printf 'second\\n\\n'")
    assert result.ok and lines[-1] == "second"  # the blank line after it is no progress
    assert set(lines) <= {"first", "second"}  # both, unless a slow reader got them together


ONE_MIB = "x" * MAX_STDIN_BYTES


async def test_stdin_is_what_the_command_reads(ctx: ToolContext) -> None:
    result = await bash(ctx, "cat", stdin="hello\nwörld\n")
    assert (result.ok, result.output) == (True, "exit code 0\nhello\nwörld")
    assert (await bash(ctx, "wc -c", stdin="")).output == "exit code 0\n0"


async def test_a_whole_mebibyte_of_stdin_is_read(ctx: ToolContext) -> None:
    assert (await bash(ctx, "wc -c", stdin=ONE_MIB)).output == f"exit code 0\n{MAX_STDIN_BYTES}"
    wide = "é" * (MAX_STDIN_BYTES // 2)  # two bytes each: the limit counts bytes
    assert (await bash(ctx, "wc -c", stdin=wide)).output == f"exit code 0\n{MAX_STDIN_BYTES}"


async def test_a_command_that_ignores_or_leaves_stdin_early_finishes(ctx: ToolContext) -> None:
    started = time.monotonic()
    assert (await bash(ctx, "echo ignored", stdin=ONE_MIB)).output == "exit code 0\nignored"
    assert (await bash(ctx, "head -c 5", stdin=ONE_MIB)).output == "exit code 0\nxxxxx"
    closed = await bash(ctx, "exec 0<&-; echo closed; exit 3", stdin=ONE_MIB)
    assert closed.output == "exit code 3\nclosed"
    assert time.monotonic() - started < 10


async def test_a_command_that_prints_a_lot_before_reading_stdin_does_not_hang(
    ctx: ToolContext,
) -> None:
    result = await bash(ctx, "seq 1 400000; wc -c", stdin=ONE_MIB, timeout_s=30)
    assert result.ok and result.output.splitlines()[-1] == str(MAX_STDIN_BYTES)


async def test_a_background_job_holding_stdin_does_not_hold_the_call(
    root: Path, ctx: ToolContext
) -> None:
    started = time.monotonic()
    command = "sleep 1000 <&0 >/dev/null 2>&1 & echo $! > pids; echo started"
    try:
        result = await bash(ctx, command, stdin=ONE_MIB)
        assert time.monotonic() - started < 5
        assert result.output == "exit code 0\nstarted"
    finally:
        for pid in read_pids(root, 1):
            os.kill(pid, 9)


async def test_cancellation_while_stdin_is_written_kills_the_group(
    root: Path, ctx: ToolContext
) -> None:
    task = asyncio.create_task(bash(ctx, "echo $$ > pids; sleep 1000; cat", stdin=ONE_MIB))
    deadline = time.monotonic() + scaled(5)
    while not (root / "pids").exists() or not (root / "pids").read_text().strip():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.02)
    task.cancel()
    assert (await task).output.startswith("[interrupted after")
    assert time.monotonic() < deadline + 5
    assert_all_gone(read_pids(root, 1))


@pytest.mark.slow  # hundreds of commands started and cancelled
@pytest.mark.parametrize("stdin", [None, ONE_MIB], ids=["no stdin", "1 MiB of stdin"])
async def test_a_cancel_at_any_moment_of_the_start_leaves_nothing_running(
    root: Path, ctx: ToolContext, stdin: str | None
) -> None:
    for turns in range(30):  # some cancels land while asyncio is still connecting the pipes
        pids = root / f"pids{turns}"
        command = f"sleep 1000 & echo $! > {pids.name}; wait"
        task = asyncio.create_task(bash(ctx, command, stdin=stdin))
        for _ in range(turns):
            await asyncio.sleep(0)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):  # cancelled as it started
            result = await asyncio.wait_for(task, 10)
            assert result.output.startswith("[interrupted after")  # or once it ran
        await asyncio.sleep(0.1)  # a bash that was not stopped would have written by now
        if pids.exists() and pids.read_text().strip():
            assert_all_gone([int(pids.read_text())])


async def test_too_much_stdin_is_refused_before_anything_runs(root: Path, ctx: ToolContext) -> None:
    with pytest.raises(pydantic.ValidationError, match="1 MiB"):
        RunBashArgs(command="cat", stdin=ONE_MIB + "x")
    with pytest.raises(pydantic.ValidationError, match="1,048,578 bytes"):
        RunBashArgs(command="cat", stdin="é" * (MAX_STDIN_BYTES // 2 + 1))
    runner = CallRunner(default_registry(), ctx, CallGates.of(ScriptedApprover(), Rules(yes=True)))
    arguments = json.dumps({"command": "touch ran", "stdin": ONE_MIB + "x"})
    items = [item async for item in runner.run(runner.parse(ToolCall("c1", "run_bash", arguments)))]
    [result] = items
    assert isinstance(result, ToolResult) and not result.ok
    assert "stdin is 1,048,577 bytes" in result.output and "< FILE" in result.output
    assert not (root / "ran").exists()


def test_the_approval_preview_shows_the_start_of_stdin(ctx: ToolContext) -> None:
    args = RunBashArgs(command="wc -c", timeout_s=30, stdin=ONE_MIB)
    preview = TOOL.preview(args, TOOL.access(args, ctx), ctx)
    assert preview is not None
    shown = json.loads(preview)
    assert shown["timeout_s"] == 30 and shown["stdin_bytes"] == MAX_STDIN_BYTES
    assert 0 < len(shown["stdin"]) < 10_000
    plain = RunBashArgs(command="ls")
    assert "stdin" not in json.loads(TOOL.preview(plain, TOOL.access(plain, ctx), ctx) or "{}")


@pytest.mark.usefixtures("sandbox_on")
async def test_stdin_reaches_a_sandboxed_command(root: Path) -> None:
    ctx = ToolContext(root=root, sandbox=Sandbox(root, detect()))
    assert (await bash(ctx, "cat", stdin="inside\n")).output == "exit code 0\ninside"
    assert (await bash(ctx, "wc -c", stdin=ONE_MIB)).output == f"exit code 0\n{MAX_STDIN_BYTES}"
    assert (await bash(ctx, "head -c 2", stdin=ONE_MIB)).output == "exit code 0\nxx"
    assert (await bash(ctx, "wc -c")).output == "exit code 0\n0"
