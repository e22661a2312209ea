"""Helpers for tests of MCP servers: configurations naming the fault server and the real
`mcp-server-git` / `mcp-server-time` packages, and an `McpServers` waited on until it settles."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

from waiting import scaled

from zizou.env import scrubbed_env
from zizou.mcp.config import ServerSpec, parse
from zizou.mcp.connection import Launch
from zizou.mcp.manager import McpServers
from zizou.mcp.settings import McpSettings
from zizou.mcp.status import ServerStatus

FAULT_SERVER = str(Path(__file__).resolve().parent / "mcp_fault_server.py")


def stdio(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"command": sys.executable, "args": list(args)}
    if env:
        entry["env"] = env
    return entry


def fault(*flags: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    return stdio(FAULT_SERVER, *flags, env=env)


def git_server(repository: Path) -> dict[str, Any]:
    return stdio("-m", "mcp_server_git", "--repository", str(repository))


def time_server() -> dict[str, Any]:
    return stdio("-m", "mcp_server_time", "--local-timezone", "UTC")


def config_text(**servers: dict[str, Any]) -> str:
    return json.dumps({"mcpServers": servers}, indent=2)


def specs(**servers: dict[str, Any]) -> list[ServerSpec]:
    found = parse(config_text(**servers).encode(), Path("test.json"), "user")
    assert not found.problems, found.problems
    return list(found.servers)


def launch(root: Path, **settings: Any) -> Launch:
    defaults = {"connect_timeout_s": 20.0, "call_timeout_s": 20.0}
    return Launch(
        root=root,
        settings=McpSettings(**{**defaults, **settings}),
        env=scrubbed_env(os.environ),
        environ=dict(os.environ),
    )


def started(root: Path, servers: dict[str, dict[str, Any]], **settings: Any) -> McpServers:
    manager = McpServers(launch(root, **settings))
    manager.add(specs(**servers))
    manager.start()
    return manager


def settle(manager: McpServers, limit_s: float = 60.0) -> list[ServerStatus]:
    """The statuses once no server is starting (a test's own generous limit)."""
    deadline = time.monotonic() + scaled(limit_s)
    while time.monotonic() < deadline:
        statuses = manager.statuses()
        if all(status.state != "starting" for status in statuses):
            return statuses
        time.sleep(0.05)
    raise AssertionError(f"servers still starting: {manager.statuses()}")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + scaled(limit_s)
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"nothing listens on port {port}")


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    if stat.exists():
        text = stat.read_text()
        return text[text.rfind(")") + 2] != "Z"
    return True
