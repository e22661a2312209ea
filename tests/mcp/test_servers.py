"""MCP servers started for real (the SDK-written fault server), each misbehaving in turn: a
clear tool error and a failed status, never a call that hangs, and no process left behind."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp_harness import (
    FAULT_SERVER,
    fault,
    free_port,
    process_alive,
    settle,
    started,
    wait_for_port,
)

from zizou.mcp.manager import McpServers
from zizou.mcp.results import MAX_MODEL_CHARS
from zizou.mcp.status import CallFailed
from zizou.tools import default_registry


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[McpServers]:
    """One fault server for the calls that leave it running."""
    manager = started(tmp_path_factory.mktemp("root"), {"fault": fault()})
    settle(manager)
    yield manager
    manager.close()


def test_a_ready_server_offers_its_tools_under_its_own_names(healthy: McpServers) -> None:
    [status] = healthy.statuses()
    assert status.state == "ready", status
    names = {tool.name for tool in healthy.tools()}
    assert {"mcp__fault__echo", "mcp__fault__read_file", "mcp__fault__crash"} <= names
    # A tool named like one of ours stays the server's: ours is untouched.
    registry = default_registry()
    registry.attach(healthy)
    ours = registry.get("read_file")
    assert ours is not None and type(ours).__module__ == "zizou.tools.read_file"
    theirs = registry.get("mcp__fault__read_file")
    assert theirs is not None and getattr(theirs, "tool", None) == "read_file"


def test_a_tool_whose_schema_is_invalid_is_left_out_with_why(healthy: McpServers) -> None:
    assert "mcp__fault__broken" not in {tool.name for tool in healthy.tools()}
    [problem] = healthy.left_out("fault")
    assert "broken" in problem and "not valid JSON Schema" in problem


async def test_a_call_returns_the_servers_text(healthy: McpServers) -> None:
    result = await healthy.call_tool("fault", "echo", {"text": "hi"})
    assert result.ok and result.output == "echo: hi"


async def test_a_ten_megabyte_result_is_capped_with_a_note(healthy: McpServers) -> None:
    result = await healthy.call_tool("fault", "big", {"chars": 10_000_000})
    assert result.ok
    assert len(result.output) < MAX_MODEL_CHARS + 200
    assert "characters omitted: the result was 10,000,000 characters" in result.output
    assert result.output.startswith("000000000\n")  # the head and the tail are kept


async def test_is_error_is_a_failed_result(healthy: McpServers) -> None:
    result = await healthy.call_tool("fault", "fail", {})
    assert not result.ok and result.output == "it went wrong"


async def test_an_image_is_kept_as_an_image(healthy: McpServers) -> None:
    result = await healthy.call_tool("fault", "picture", {})
    assert result.ok and "a dot" in result.output and "[image 1: image/png" in result.output
    [image] = result.images
    assert image.mime == "image/png" and image.data


async def test_resources_and_prompts(healthy: McpServers) -> None:
    [status] = healthy.statuses()
    assert [r["uri"] for r in status.resources] == ["note://readme"]
    assert [p["name"] for p in status.prompts] == ["review"]
    text = await healthy.read_resource("fault", "note://readme")
    assert "The readme says: ship it." in text
    prompt = await healthy.get_prompt("fault", "review", {"topic": "the parser"})
    assert prompt == "Please review the parser carefully."


async def test_esc_cancels_the_call_and_the_server_is_told(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    manager = started(tmp_path, {"fault": fault(env={"FAULT_MARKS": str(marks)})})
    try:
        settle(manager)
        call = asyncio.ensure_future(manager.call_tool("fault", "hang", {}))
        await asyncio.sleep(0.5)
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        for _ in range(1200):  # notifications/cancelled reached the server's handler
            if (marks / "cancelled").exists():
                break
            await asyncio.sleep(0.05)
        assert (marks / "cancelled").exists()
        assert (await manager.call_tool("fault", "echo", {"text": "still"})).ok
    finally:
        manager.close()


async def test_a_call_past_its_time_out_fails_and_says_which_setting(tmp_path: Path) -> None:
    manager = started(tmp_path, {"fault": fault()}, call_timeout_s=1.0)
    try:
        settle(manager)
        result = await manager.call_tool("fault", "hang", {})
        assert not result.ok
        assert "no result within 1 s" in result.output and "call_timeout_s" in result.output
    finally:
        manager.close()


async def test_a_crash_mid_call_is_a_tool_error_with_its_stderr(tmp_path: Path) -> None:
    manager = started(tmp_path, {"fault": fault()})
    try:
        settle(manager)
        result = await manager.call_tool("fault", "crash", {})
        assert not result.ok
        assert "closed the connection" in result.output
        assert "the disk is on fire" in result.output
        for _ in range(1200):
            if manager.statuses()[0].state == "failed":
                break
            await asyncio.sleep(0.05)
        [status] = manager.statuses()
        assert status.state == "failed"
        assert any("disk is on fire" in line for line in status.stderr)
        again = await manager.call_tool("fault", "echo", {"text": "x"})
        assert not again.ok and "/mcp restart fault" in again.output
        assert manager.missing("mcp__fault__echo") is not None
        manager.restart("fault")
        settle(manager)
        assert (await manager.call_tool("fault", "echo", {"text": "back"})).output == "echo: back"
    finally:
        manager.close()


async def test_garbage_fails_the_waiting_call_at_once(tmp_path: Path) -> None:
    # Waiting out the call's time-out would outlast the test's own: the garbage ends the call.
    manager = started(tmp_path, {"fault": fault("--raw-garbage")}, call_timeout_s=3600.0)
    try:
        settle(manager)
        result = await manager.call_tool("fault", "garbage", {})
        assert not result.ok
        assert "not JSON-RPC" in result.output and "this is not JSON-RPC" in result.output
        [status] = manager.statuses()
        assert status.state == "ready" and "not JSON-RPC" in (status.message or "")
    finally:
        manager.close()


def test_a_server_that_hangs_at_start_fails_and_is_stopped(tmp_path: Path) -> None:
    manager = started(tmp_path, {"slow": fault("--hang-at-start")}, connect_timeout_s=1.5)
    try:
        [status] = settle(manager)
        assert status.state == "failed"
        assert "did not answer the MCP handshake within 1.5 s" in (status.message or "")
        assert "connect_timeout_s" in (status.message or "")
        assert manager.tools() == ()
    finally:
        manager.close()


def test_a_command_that_does_not_exist_fails_with_the_fix(tmp_path: Path) -> None:
    manager = started(tmp_path, {"nope": {"command": "no-such-mcp-server-xyz"}})
    try:
        [status] = settle(manager)
        assert status.state == "failed" and "not found" in (status.message or "")
    finally:
        manager.close()


def test_every_server_process_is_gone_after_close(tmp_path: Path) -> None:
    manager = started(tmp_path, {"a": fault(), "b": fault()})
    settle(manager)
    pids = [c.pid for c in manager._connections.values()]
    assert all(pid is not None and process_alive(pid) for pid in pids)
    manager.close()
    assert not any(process_alive(pid) for pid in pids if pid is not None)


@contextlib.contextmanager
def http_server(header: str) -> Iterator[int]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, FAULT_SERVER, "--http", str(port), "--require-header", header],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        yield port
    finally:
        proc.kill()
        proc.wait()


async def test_an_http_server_gets_a_header_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with http_server("X-Token: s3cret-value-42") as port:
        entry = {
            "type": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"X-Token": "${FAULT_TOKEN}"},
        }
        monkeypatch.setenv("FAULT_TOKEN", "s3cret-value-42")
        manager = started(tmp_path, {"web": entry})
        try:
            [status] = settle(manager)
            assert status.state == "ready", status
            result = await manager.call_tool("web", "echo", {"text": "over http"})
            assert result.output == "echo: over http"
        finally:
            manager.close()
        monkeypatch.setenv("FAULT_TOKEN", "wrong")
        refused = started(tmp_path, {"web": entry}, connect_timeout_s=5.0)
        try:
            [status] = settle(refused)
            assert status.state == "failed", status
        finally:
            refused.close()


async def test_a_call_to_an_unknown_server_or_tool_says_so(healthy: McpServers) -> None:
    result = await healthy.call_tool("fault", "nothing_here", {})
    assert not result.ok and "no tool named nothing_here" in result.output
    with pytest.raises(CallFailed, match="no MCP server named ghost"):
        await healthy.read_resource("ghost", "x://y")
