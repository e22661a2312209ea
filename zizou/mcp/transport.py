"""How zizou reaches a server: a process it starts (stdio), or a URL (streamable HTTP).

The stdio transport is zizou's own rather than the SDK's, for what zizou must guarantee: the
process runs in the command sandbox (its argv prefixed by `Sandbox.prefix`) in a new process
group that is killed whole when the connection ends, its stderr goes to a file (never to the
screen) whose last lines explain a failure, a line that is not JSON-RPC is reported rather than
silently dropped, and a message may be large (a 10 MB result is one line).

Both transports are tapped (`tapped`): every message in either direction is told to an audit
function, and the end of the server's stream is an event the connection waits on (a crash).
This module imports the MCP SDK; only the connection thread imports it (see `manager.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import IO, Any

import anyio
import mcp_types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from zizou.process_groups import group_alive, kill_process_group

MAX_LINE_BYTES = 64 * 1024 * 1024  # one message; a larger one ends the connection, said so
EXIT_GRACE_S = 0.5  # after stdin closes, before the process group is signalled
Audit = Callable[[str, str], None]  # ("->" or "<-", the message as JSON text)
Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


@contextlib.asynccontextmanager
async def stdio(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: dict[str, str],
    stderr: IO[Any],
    on_garbage: Callable[[str], None],
    on_pid: Callable[[int | None], None],
    gentle: Callable[[], bool] = lambda: True,
) -> AsyncIterator[Streams]:
    """Start `argv` (already sandboxed) and speak JSON-RPC over its stdin and stdout, one
    message a line; the whole process group is ended when the block exits, after a moment to
    exit on its own if `gentle()` (a server still starting is ended at once)."""
    proc = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        cwd=cwd,
        env=env,
        start_new_session=True,
        limit=MAX_LINE_BYTES,
    )
    on_pid(proc.pid)
    to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def read() -> None:
        assert proc.stdout is not None
        async with to_session:
            while True:
                try:
                    line = await proc.stdout.readline()
                except (ValueError, asyncio.LimitOverrunError):
                    on_garbage(f"a message larger than {MAX_LINE_BYTES // (1024 * 1024)} MiB")
                    return
                if not line:
                    return
                if not line.strip():
                    continue
                try:
                    message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValueError:
                    on_garbage(line.decode("utf-8", "replace").strip())
                    continue
                await to_session.send(SessionMessage(message))

    async def write() -> None:
        assert proc.stdin is not None
        async with from_session:
            async for item in from_session:
                data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                try:
                    proc.stdin.write(data.encode("utf-8") + b"\n")
                    await proc.stdin.drain()
                except (BrokenPipeError, ConnectionResetError):
                    return

    async with anyio.create_task_group() as group:
        group.start_soon(read)
        group.start_soon(write)
        try:
            yield from_server, to_server
        finally:
            with anyio.CancelScope(shield=True):
                await _end(proc, EXIT_GRACE_S if gentle() else 0.0)
            on_pid(None)
            group.cancel_scope.cancel()


async def _end(proc: asyncio.subprocess.Process, grace_s: float) -> None:
    """Close the server's stdin, give it `grace_s` to exit, then end its process group."""
    if proc.stdin is not None:
        with contextlib.suppress(OSError):
            proc.stdin.close()
    if grace_s:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), grace_s)
    if proc.returncode is None or group_alive(proc.pid):
        await kill_process_group(proc.pid, grace_s=EXIT_GRACE_S)
    with contextlib.suppress(TimeoutError, ProcessLookupError):
        await asyncio.wait_for(proc.wait(), EXIT_GRACE_S)


@contextlib.asynccontextmanager
async def http(url: str, headers: dict[str, str], connect_s: float) -> AsyncIterator[Any]:
    """Streamable HTTP to `url`, with `headers` on every request."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    timeout = httpx2.Timeout(connect_s, read=None)  # a call's own time-out bounds the read
    client = create_mcp_http_client(headers=headers, timeout=timeout)
    async with client, streamable_http_client(url, http_client=client) as streams:
        yield streams


@contextlib.asynccontextmanager
async def tapped(streams: Any, audit: Audit, closed: asyncio.Event) -> AsyncIterator[Streams]:
    """`streams` with every message told to `audit`, and `closed` set once the server's side
    ends (the process exited, the connection dropped)."""
    inner_read, inner_write = streams
    to_session, from_tap = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    to_tap, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def inbound() -> None:
        try:
            async with to_session:
                async for item in inner_read:
                    if isinstance(item, SessionMessage):
                        audit("<-", item.message.model_dump_json(by_alias=True, exclude_unset=True))
                    await to_session.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        finally:
            closed.set()

    async def outbound() -> None:
        try:
            async with from_session:
                async for item in from_session:
                    audit("->", item.message.model_dump_json(by_alias=True, exclude_unset=True))
                    await inner_write.send(item)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            closed.set()

    async with anyio.create_task_group() as group:
        group.start_soon(inbound)
        group.start_soon(outbound)
        try:
            yield from_tap, to_tap
        finally:
            group.cancel_scope.cancel()


__all__ = ["MAX_LINE_BYTES", "http", "stdio", "tapped"]
