"""A server as the front ends show it: its state, its lists, why it failed; and the error a
request to a server that cannot answer becomes."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Literal

State = Literal["starting", "ready", "failed", "disabled", "unapproved", "stopped"]


class CallFailed(Exception):
    """A request to a server failed; the message is what the model (or the user) reads."""


@dataclass(frozen=True)
class ServerStatus:
    """A server as the front ends show it, at one moment."""

    name: str
    scope: str
    transport: str
    target: str  # the command line or URL, as configured
    state: State
    tools: tuple[dict[str, Any], ...] = ()  # as listed: name, description, inputSchema...
    resources: tuple[dict[str, Any], ...] = ()
    prompts: tuple[dict[str, Any], ...] = ()
    message: str | None = None  # why it failed, or what it did wrong while ready
    stderr: tuple[str, ...] = ()  # its last lines, for a failure
    since: float = field(default_factory=time.monotonic)

    def says(self) -> str:
        """One line: the state, and the tool count or why it failed."""
        match self.state:
            case "ready":
                count = f"ready · {len(self.tools)} tool{'s' * (len(self.tools) != 1)}"
                return count + (f" · {self.message}" if self.message else "")
            case "failed":
                return f"failed: {self.message or 'no reason given'}"
            case "unapproved":
                return "not approved: `zizou mcp approve`, or /mcp approve in the app"
            case other:
                return other


def not_running(status: ServerStatus) -> str:
    """Why a request cannot go to a server now, and what to do."""
    name = status.name
    match status.state:
        case "failed":
            tail = "\n".join(status.stderr[-5:])
            more = f"\nits stderr ended with:\n{tail}" if tail else ""
            return (
                f"the MCP server {name} is not running: {status.message}; the user can "
                f"restart it with /mcp restart {name}{more}"
            )
        case "disabled":
            return f"the MCP server {name} is disabled for this session (/mcp enable {name})"
        case "unapproved":
            return f"the MCP server {name} is not approved (`zizou mcp approve`)"
        case "starting":
            return f"the MCP server {name} is still starting; try again in a moment"
        case _:
            return f"the MCP server {name} is not running ({status.state})"


__all__ = ["CallFailed", "ServerStatus", "State", "not_running"]
