"""The MCP servers an editor names in `session/new`, in the `.mcp.json` form zizou reads from
`--mcp-config` files: they start as zizou starts its own (stdio ones in the commands' sandbox).
The list is the user's own choice in the editor, so, like a file named on the command line,
it needs no separate approval."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

ClientServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def server_entries(servers: Sequence[ClientServer]) -> dict[str, Any]:
    """The servers as a `.mcp.json` document; SSE and ACP servers are left out (zizou speaks
    stdio and streamable HTTP)."""
    entries: dict[str, Any] = {}
    for server in servers:
        if isinstance(server, McpServerStdio):
            env = {variable.name: variable.value for variable in server.env}
            entries[server.name] = {"command": server.command, "args": server.args, "env": env}
        elif isinstance(server, HttpMcpServer):
            headers = {header.name: header.value for header in server.headers}
            entries[server.name] = {"type": "http", "url": server.url, "headers": headers}
    return {"mcpServers": entries}


def servers_file(servers: Sequence[ClientServer]) -> Path | None:
    """A private temporary file naming `servers` (None when there are none); the caller
    removes it once the servers are read."""
    document = server_entries(servers)
    if not document["mcpServers"]:
        return None
    handle, name = tempfile.mkstemp(prefix="zizou-acp-mcp-", suffix=".json")
    with os.fdopen(handle, "w", encoding="utf-8") as out:
        json.dump(document, out)
    return Path(name)


__all__ = ["ClientServer", "server_entries", "servers_file"]
