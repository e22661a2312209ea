"""One MCP server, connected: its lifecycle, its lists, and the requests sent to it.

A `Connection` lives on the MCP thread's event loop (`manager.py`). `run` starts the server
(or connects to its URL), shakes hands and lists its tools, resources and prompts within the
connect time-out, then serves until it is stopped or the server goes away. Its `status` is a
frozen snapshot any thread may read: starting, ready (with its lists), failed (with why, and
the last lines of its stderr), disabled or stopped.

What can go wrong becomes a `CallFailed` whose message says what happened and what to do: a
server that never answers the handshake, one that exits mid-call, one that writes a line that
is not JSON-RPC while a call waits (the call fails at once rather than waiting out its
time-out), an error response, a call that outlives its time-out (the server is told it was
cancelled, `notifications/cancelled`, as it is when the user presses Esc).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from zizou.mcp.config import HttpServer, MissingVariable, ServerSpec, StdioServer, expanded
from zizou.mcp.settings import McpSettings
from zizou.mcp.status import CallFailed, ServerStatus, not_running

if TYPE_CHECKING:
    from zizou.sandbox import Sandbox

STDERR_LINES = 12
STDERR_TAIL_BYTES = 8192
AUDIT_CHARS = 100_000  # of one message, in the debug log
READ_ONLY = "Read-only file system"  # a write the sandbox refused, as its stderr says it
NOT_FOUND = "bwrap: execvp "  # the sandbox found no such program
log = logging.getLogger("zizou.mcp")


@dataclass(frozen=True)
class Launch:
    """What every connection of a session shares: where stdio servers run and with what."""

    root: Path
    settings: McpSettings
    env: dict[str, str]  # the scrubbed environment servers start from
    environ: dict[str, str]  # where `${VAR}` values come from
    sandbox: Sandbox | None = None
    network: bool = False  # stdio servers may use the network in the sandbox


class Connection:
    def __init__(
        self, spec: ServerSpec, launch: Launch, on_change: Callable[[ServerStatus], None]
    ) -> None:
        self.spec = spec
        self.launch = launch
        self.on_change = on_change
        self.status = ServerStatus(
            spec.name, spec.scope, spec.transport, spec.describe(), "starting"
        )
        self.session: Any = None  # the SDK's ClientSession while ready
        self.pid: int | None = None  # the stdio server's process (group), while it runs
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()
        self._ready = asyncio.Event()
        self._stderr: IO[bytes] | None = None
        self._greeted = False  # the handshake was done: the server is let go gently
        self._calls: dict[asyncio.Task[Any], str | None] = {}  # in flight -> why it must fail

    def _set(self, **changes: Any) -> None:
        self.status = replace(self.status, since=time.monotonic(), **changes)
        if self.status.state != "starting":
            self._ready.set()
        self.on_change(self.status)

    def stop(self) -> None:
        self._stop.set()

    async def run(self) -> None:
        """Connect, serve until stopped or lost, then close (the process group ended). A stop
        while the server is still starting cuts the start short."""
        self._set(state="starting", message=None, stderr=())
        serving = asyncio.ensure_future(self._serve())
        stop = asyncio.ensure_future(self._stop.wait())
        try:
            await asyncio.wait({serving, stop}, return_when=asyncio.FIRST_COMPLETED)
            if not serving.done():
                serving.cancel()
            await serving
        except asyncio.CancelledError:
            if not self._stop.is_set():
                raise  # not a stop: whoever runs this was cancelled
        except Exception as exc:  # whatever a broken server or a bad URL raises
            self._broke(_innermost(exc))
        finally:
            stop.cancel()
            self.session = None
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None
        if self.status.state in ("starting", "ready"):
            self._set(state="stopped")

    async def _serve(self) -> None:
        from zizou.mcp.session import client_session, handshake
        from zizou.mcp.transport import tapped

        config = expanded(self.spec.config, self.launch.environ)
        async with contextlib.AsyncExitStack() as stack:
            streams = await stack.enter_async_context(self._transport(config))
            read, write = await stack.enter_async_context(
                tapped(streams, self._audit, self._closed)
            )
            session = await stack.enter_async_context(client_session(read, write, self._notified))
            lists = await asyncio.wait_for(
                handshake(session), self.launch.settings.connect_timeout_s
            )
            self.session, self._greeted = session, True
            self._set(state="ready", message=None, **lists)
            await self._closed.wait()  # the server went away (a stop cancels this)
            self.session = None
            self._fail_calls("the server closed the connection")
            self._failed("the server exited or closed the connection")

    def _transport(self, config: StdioServer | HttpServer) -> Any:
        from zizou.mcp import transport

        if isinstance(config, HttpServer):
            connect = self.launch.settings.connect_timeout_s
            return transport.http(config.url, dict(config.headers), connect)
        launch = self.launch
        named = [Path(part) for part in (config.command, *config.args) if part.startswith("/")]
        prefix = (
            launch.sandbox.prefix(network=launch.network, readable=named) if launch.sandbox else []
        )
        # Kept past the connection's end (closed by `run`): a failure quotes its last lines.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        return transport.stdio(
            [*prefix, config.command, *config.args],
            cwd=launch.root,
            env={**launch.env, **config.env},
            stderr=self._stderr,
            on_garbage=self._garbage,
            on_pid=self._started,
            gentle=lambda: self._greeted,
        )

    def _broke(self, exc: BaseException) -> None:
        """The connection failed: say why, in words that name the fix."""
        if isinstance(exc, MissingVariable):
            self._set(state="failed", message=f"its configuration needs {exc}")
        elif isinstance(exc, TimeoutError):
            seconds = self.launch.settings.connect_timeout_s
            self._failed(
                f"it did not answer the MCP handshake within {seconds:g} s "
                "(connect_timeout_s in the [mcp] section of config.toml)"
            )
        else:
            log.info("MCP server %s failed", self.spec.name, exc_info=exc)
            self._failed(_reason(exc))

    def _started(self, pid: int | None) -> None:
        self.pid = pid

    def _failed(self, message: str) -> None:
        tail = self.stderr_tail()
        if any(line.startswith(NOT_FOUND) for line in tail):  # the sandbox could not start it
            message = "its command was not found; check `command` (and PATH) in its configuration"
        if self.launch.sandbox is not None and any(READ_ONLY in line for line in tail):
            message += (
                "; it tried to write outside the project, which the sandbox refuses: install it "
                "outside zizou, or set sandbox = false in the [mcp] section of config.toml"
            )
        self._set(state="failed", message=message, stderr=tail)

    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines the server wrote to its stderr (read without moving the server's
        file offset: it shares the file)."""
        if self._stderr is None:
            return self.status.stderr
        try:
            fd = self._stderr.fileno()
            size = os.fstat(fd).st_size
            start = max(0, size - STDERR_TAIL_BYTES)
            data = os.pread(fd, size - start, start)
        except (OSError, ValueError):
            return ()
        lines = data.decode("utf-8", "replace").splitlines()
        return tuple(line for line in lines if line.strip())[-STDERR_LINES:]

    def _audit(self, direction: str, text: str) -> None:
        shown = text if len(text) <= AUDIT_CHARS else f"{text[:AUDIT_CHARS]}… ({len(text):,} chars)"
        log.info("MCP %s %s %s", self.spec.name, direction, shown)

    def _garbage(self, line: str) -> None:
        shown = line if len(line) <= 200 else line[:200] + "…"
        note = f"it wrote output that is not JSON-RPC: {shown!r}"
        log.warning("MCP server %s %s", self.spec.name, note)
        if self.status.state == "ready":
            self._set(message=note)
        self._fail_calls(f"the server answered with output that is not JSON-RPC: {shown!r}")

    def _fail_calls(self, why: str) -> None:
        for task in self._calls:
            if self._calls[task] is None:
                self._calls[task] = why
                task.cancel()

    async def _notified(self, message: Any) -> None:
        """A notification from the server: a changed list of tools is listed again."""
        from zizou.mcp.session import list_all

        method = getattr(getattr(message, "root", message), "method", None)
        if method == "notifications/tools/list_changed" and self.session is not None:
            with contextlib.suppress(Exception):
                tools = await list_all(self.session.list_tools, "tools")
                self._set(tools=tools)

    async def wait_ready(self, wait_s: float) -> None:
        """Until the server is ready; a CallFailed saying why when it is not."""
        if self.status.state == "starting":
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ready.wait(), wait_s)
        if self.status.state != "ready" or self.session is None:
            raise CallFailed(not_running(self.status))

    async def request(self, send: Callable[[Any], Awaitable[Any]], what: str) -> dict[str, Any]:
        """Send one request (`send(session)`) within the call time-out; its result as MCP's
        wire JSON, or a CallFailed naming what went wrong."""
        settings = self.launch.settings
        await self.wait_ready(settings.connect_timeout_s)
        task = asyncio.current_task()
        assert task is not None
        self._calls[task] = None
        try:
            result = await asyncio.wait_for(send(self.session), settings.call_timeout_s)
        except asyncio.CancelledError:
            why = self._calls.get(task)
            if why is None:
                raise  # the user's Esc, or zizou closing: the server was told
            task.uncancel()
            raise CallFailed(f"{what} failed: {why}{self._tail()}") from None
        except TimeoutError:
            raise CallFailed(
                f"{what} got no result within {settings.call_timeout_s:g} s, so it was "
                "cancelled (call_timeout_s in the [mcp] section of config.toml)"
            ) from None
        except Exception as exc:
            raise CallFailed(f"{what} failed: {_reason(exc)}{self._tail()}") from None
        finally:
            self._calls.pop(task, None)
        return dict(result.model_dump(mode="json", by_alias=True, exclude_none=True))

    def _tail(self) -> str:
        lines = self.stderr_tail() if self._stderr is not None else ()
        return "\nits stderr ended with:\n" + "\n".join(lines) if lines else ""


def _innermost(exc: BaseException) -> BaseException:
    """The first exception inside the exception groups anyio's task groups wrap it in."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    """An exception from the SDK or a transport, in words."""
    exc = _innermost(exc)
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found ({exc.filename or exc}); check `command` and PATH"
    code = getattr(getattr(exc, "error", None), "code", None)
    text = str(exc) or type(exc).__name__
    if code == -32000 or "Connection closed" in text:
        return "the server closed the connection (it may have crashed)"
    return f"{text} (error {code})" if isinstance(code, int) else text


__all__ = ["Connection", "Launch"]
