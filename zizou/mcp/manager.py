"""The session's MCP servers, run on a thread of their own.

Servers start in the background when a session opens: the thread and its event loop, the MCP
SDK's import, each server's process and handshake all happen away from the screen and from the
agent's loop, so neither the first frame nor the first request waits for a server (a server
that takes ten seconds to start offers its tools from the first step after it is ready, or at
once when its tools are remembered from an earlier start: `tool_cache.py`).

`McpServers` is a tool source for the session's registry (`tools()`: the tools of the ready
servers, as `McpTool`s), and the front ends' view of the servers (`statuses()`, `subscribe`,
`restart`, `disable`, `enable`). Requests cross to the MCP thread and their results come back
to the caller's loop; cancelling the caller (Esc) cancels the request, and the server is told
(`notifications/cancelled`). `close` stops every server and ends its process group.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import json
import os
import signal
import threading
import time
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

from zizou.env import is_secret_variable
from zizou.mcp.config import HttpServer, ServerSpec, StdioServer, expanded
from zizou.mcp.connection import Connection, Launch
from zizou.mcp.results import prompt_text, resource_text, tool_result
from zizou.mcp.status import CallFailed, ServerStatus, State, not_running
from zizou.mcp.tool import McpTool, mcp_tool, schema_problem
from zizou.mcp.tool_cache import ToolCache
from zizou.redact import MIN_SECRET_CHARS, remember_secret
from zizou.tools.base import ToolResult

T = TypeVar("T")
CLOSE_WAIT_S = 5.0
Subscriber = Callable[[ServerStatus], None]


class McpServers:
    def __init__(self, launch: Launch, cache: ToolCache | None = None) -> None:
        self.launch = launch
        self.cache = cache
        self._specs: dict[str, ServerSpec] = {}
        self._statuses: dict[str, ServerStatus] = {}
        self._connections: dict[str, Connection] = {}
        self._runs: dict[str, concurrent.futures.Future[None]] = {}
        self._tools: tuple[McpTool, ...] = ()
        self._left_out: dict[str, tuple[str, ...]] = {}
        self._checked: dict[str, str | None] = {}  # a listed tool (as JSON) -> its problem
        self._subscribers: list[Subscriber] = []
        self._lock = threading.RLock()
        self._changes = threading.Condition(self._lock)  # told each change of a status
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    # --- what is configured -----------------------------------------------------------------

    def add(self, specs: Iterable[ServerSpec], *, approved: bool = True) -> None:
        """Servers to run (started by `start`, or at once once started); unapproved ones are
        only listed until `approve` starts them."""
        specs = list(specs)
        with self._lock:
            for spec in specs:
                self._specs[spec.name] = spec
                state: State = "starting" if approved else "unapproved"
                self._statuses[spec.name] = ServerStatus(
                    spec.name, spec.scope, spec.transport, spec.describe(), state
                )
            self._rebuild()
        if self._loop is not None:
            for spec in specs:
                if approved:
                    self._start_one(spec.name)

    def approve(self, names: Iterable[str]) -> None:
        """The user approved these (unapproved) servers: start them."""
        approved: list[str] = []
        with self._lock:
            for name in names:
                status = self._statuses.get(name)
                if status is not None and status.state == "unapproved":
                    self._statuses[name] = replace(status, state="starting")
                    approved.append(name)
        if self._loop is None:
            self.start()
            return
        for name in approved:
            self._start_one(name)

    def names(self) -> list[str]:
        return list(self._specs)

    def spec(self, name: str) -> ServerSpec:
        return self._specs[name]

    def statuses(self) -> list[ServerStatus]:
        with self._lock:
            return [self._statuses[name] for name in self._specs]

    def status(self, name: str) -> ServerStatus | None:
        return self._statuses.get(name)

    def line(self, name: str) -> str:
        """A server's state in one line, its tools counted as they are offered."""
        status = self._statuses[name]
        if status.state != "ready":
            return status.says()
        offered = sum(1 for tool in self._tools if tool.server == name)
        left = len(self.left_out(name))
        text = f"ready · {offered} tool{'s' * (offered != 1)}"
        text += f" ({left} left out: `zizou mcp get {name}`)" if left else ""
        return text + (f" · {status.message}" if status.message else "")

    def left_out(self, name: str) -> tuple[str, ...]:
        """The tools of `name` that are not offered, and why (an invalid schema)."""
        return self._left_out.get(name, ())

    def subscribe(self, subscriber: Subscriber) -> None:
        """Tell `subscriber` each change of a server's status (from the MCP thread)."""
        self._subscribers.append(subscriber)

    def tools(self) -> tuple[McpTool, ...]:
        """The tools to offer now: the ready servers', and those remembered of the servers
        still starting."""
        return self._tools

    def missing(self, name: str) -> str | None:
        """Why the tool `name` of one of these servers cannot be called now (ToolSource)."""
        for server, status in self._statuses.items():
            if name.startswith(f"mcp__{server}__") and status.state != "ready":
                return not_running(status)
        return None

    def wait_started(self, limit_s: float) -> list[str]:
        """Wait up to `limit_s` seconds for the servers that are starting to be ready (or to
        fail); the names of those still starting then."""
        deadline = time.monotonic() + limit_s
        with self._changes:
            while starting := [n for n, s in self._statuses.items() if s.state == "starting"]:
                left = deadline - time.monotonic()
                if left <= 0 or self._loop is None:
                    return starting
                self._changes.wait(left)
        return []

    # --- the thread -------------------------------------------------------------------------

    def start(self) -> None:
        """Start the thread and every approved server (once; no thread without a server)."""
        with self._lock:
            waiting = [n for n, s in self._statuses.items() if s.state == "starting"]
            if self._loop is not None or self._closed or not waiting:
                return
            loop = asyncio.new_event_loop()
            self._thread = threading.Thread(target=loop.run_forever, name="zizou-mcp", daemon=True)
            self._thread.start()
            self._loop = loop
            atexit.register(self._kill_all)
        for name in waiting:
            self._start_one(name)

    def _submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        if self._loop is None or self._closed:
            coroutine.close()
            raise CallFailed("the MCP servers are not running (zizou is closing)")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def _start_one(self, name: str) -> None:
        spec = self._specs[name]
        cached = self.cache.get(spec.fingerprint(self.launch.root)) if self.cache else ()
        connection = Connection(spec, self.launch, lambda status: None)
        connection.on_change = partial(self._changed, connection)
        with self._lock:
            self._connections[name] = connection
            self._statuses[name] = ServerStatus(
                name, spec.scope, spec.transport, spec.describe(), "starting", tools=cached
            )
            self._rebuild()
        connection.status = self._statuses[name]
        self._remember_secrets(spec)
        self._runs[name] = self._submit(connection.run())

    def _remember_secrets(self, spec: ServerSpec) -> None:
        """A server's header values and secret-looking env values are masked in every record."""
        with contextlib.suppress(ValueError):
            config: StdioServer | HttpServer = expanded(spec.config, self.launch.environ)
            values = (
                list(config.headers.values())
                if isinstance(config, HttpServer)
                else [v for k, v in config.env.items() if is_secret_variable(k, v)]
            )
            for value in values:
                if len(value) >= MIN_SECRET_CHARS:
                    remember_secret(value)

    def _changed(self, connection: Connection, status: ServerStatus) -> None:
        with self._lock:
            if self._connections.get(status.name) is not connection:
                return  # a connection stopped (restarted, disabled): its news are old
            previous = self._statuses.get(status.name)
            if previous is not None and previous.state == "disabled":
                status = ServerStatus(
                    status.name, status.scope, status.transport, status.target, "disabled"
                )
            self._statuses[status.name] = status
            self._rebuild()
            self._changes.notify_all()
        if status.state == "ready" and self.cache is not None:
            spec = self._specs[status.name]
            self.cache.put(spec.fingerprint(self.launch.root), status.tools)
        for subscriber in list(self._subscribers):
            with contextlib.suppress(Exception):
                subscriber(status)

    def _rebuild(self) -> None:
        """The tools to offer, from every server's status (under the lock)."""
        taken: set[str] = set()
        tools: list[McpTool] = []
        left_out: dict[str, tuple[str, ...]] = {}
        for name, status in self._statuses.items():
            if status.state not in ("ready", "starting"):
                continue
            problems: list[str] = []
            for info in status.tools:
                key = json.dumps(info, sort_keys=True)
                if key not in self._checked:  # checking a schema is not free: once each
                    self._checked[key] = schema_problem(info)
                problem = self._checked[key]
                if problem is not None:
                    problems.append(problem)
                else:
                    tools.append(mcp_tool(name, info, self, taken))
            left_out[name] = tuple(problems)
        self._tools, self._left_out = tuple(tools), left_out

    # --- requests, from the agent's loop ----------------------------------------------------

    async def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> ToolResult:
        try:
            result = await self._ask(server, self._call(server, tool, arguments))
        except CallFailed as err:
            return ToolResult.error(str(err))
        return tool_result(result)

    async def read_resource(self, server: str, uri: str) -> str:
        """A resource's text; a CallFailed saying why not."""
        what = f"reading {uri} from the MCP server {server}"
        result = await self._ask(server, self._request(server, "read_resource", what, uri))
        return resource_text(result)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> str:
        """A prompt's messages as one text; a CallFailed saying why not."""
        what = f"the prompt {name} of the MCP server {server}"
        result = await self._ask(server, self._request(server, "get_prompt", what, name, arguments))
        return prompt_text(result)

    async def _ask(self, server: str, coroutine: Coroutine[Any, Any, T]) -> T:
        if server not in self._specs:
            coroutine.close()
            raise CallFailed(f"there is no MCP server named {server}")
        return await asyncio.wrap_future(self._submit(coroutine))

    def _connection(self, server: str) -> Connection:
        connection = self._connections.get(server)
        status = self._statuses.get(server)
        if connection is None or status is None or status.state in ("disabled", "unapproved"):
            raise CallFailed(not_running(status) if status else f"no MCP server {server}")
        return connection

    async def _call(self, server: str, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        connection = self._connection(server)
        await connection.wait_ready(self.launch.settings.connect_timeout_s)
        if not any(info.get("name") == tool for info in connection.status.tools):
            raise CallFailed(f"the MCP server {server} has no tool named {tool} (any more)")
        return await connection.request(
            lambda session: session.call_tool(tool, arguments),
            f"the call to {tool} on the MCP server {server}",
        )

    async def _request(self, server: str, method: str, what: str, *args: Any) -> dict[str, Any]:
        connection = self._connection(server)
        return await connection.request(lambda session: getattr(session, method)(*args), what)

    # --- what the user does with a server ---------------------------------------------------

    def restart(self, name: str) -> None:
        """Stop the server (if it runs) and start it again."""
        self._stop_one(name)
        self._start_one(name)

    def disable(self, name: str) -> None:
        """Stop the server for this session; its tools are no longer offered."""
        with self._lock:
            status = self._statuses[name]
            self._statuses[name] = ServerStatus(
                name, status.scope, status.transport, status.target, "disabled"
            )
            self._rebuild()
        self._stop_one(name)
        for subscriber in list(self._subscribers):
            with contextlib.suppress(Exception):
                subscriber(self._statuses[name])

    def enable(self, name: str) -> None:
        self._start_one(name)

    def _stop_one(self, name: str, wait_s: float = CLOSE_WAIT_S) -> None:
        connection = self._connections.pop(name, None)
        run = self._runs.pop(name, None)
        if connection is None or self._loop is None:
            return
        self._loop.call_soon_threadsafe(connection.stop)
        if run is not None:
            with contextlib.suppress(Exception):
                run.result(wait_s)
        if connection.pid is not None:
            _end_now(connection.pid)

    def close(self) -> None:
        """Stop every server: each process group ends, whatever the server does."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            connections = list(self._connections.values())
            runs = list(self._runs.values())
        loop = self._loop
        if loop is not None:
            for connection in connections:
                loop.call_soon_threadsafe(connection.stop)
            concurrent.futures.wait(runs, timeout=CLOSE_WAIT_S)
            self._kill_all()
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(1.0)

    def _kill_all(self) -> None:
        for connection in list(self._connections.values()):
            if connection.pid is not None:
                _end_now(connection.pid)


def _end_now(pid: int) -> None:
    """Kill a server's process group at once (its connection did not end it in time)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


__all__ = ["McpServers", "Subscriber"]
