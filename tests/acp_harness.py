"""The real `zizou acp` process, driven by the SDK's client side over its pipes: the command
the README gives editors (`zizou acp`), plus the loopback model server's address."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    DeniedOutcome,
    NewSessionResponse,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    ToolCallUpdate,
)
from conftest import cli_env

# The command and arguments the README's editor set-ups give (tests add only the loopback's
# address): `zizou` is the entry point installed beside this Python.
ACP_COMMAND = ("zizou", "acp")


def zizou_program() -> str:
    return str(Path(sys.executable).parent / ACP_COMMAND[0])


@dataclass
class RecordingClient:
    """An editor: it records every update, answers permission requests from `answers` (an
    option id, or "cancelled"; once they run out, it rejects), and gives files as `buffers`
    hold them when asked (zizou asks only if it was told the editor can answer)."""

    answers: list[str] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    asked: list[tuple[ToolCallUpdate, list[PermissionOption]]] = field(default_factory=list)
    buffers: dict[str, str] = field(default_factory=dict)  # open files' unsaved text, by path
    read: list[str] = field(default_factory=list)  # the paths zizou asked for

    async def request_permission(
        self, options: list[PermissionOption], session_id: str, tool_call: ToolCallUpdate, **_: Any
    ) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        answer = self.answers.pop(0) if self.answers else "reject_once"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=answer, outcome="selected")
        )

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))

    async def read_text_file(self, path: str, session_id: str, **_: Any) -> ReadTextFileResponse:
        """As an editor answers: an open file's buffer, else the file on disk."""
        self.read.append(path)
        text = self.buffers.get(path)
        return ReadTextFileResponse(content=Path(path).read_text() if text is None else text)

    def on_connect(self, conn: Any) -> None:
        pass

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [u for u in self.updates if u["sessionUpdate"] == kind]

    def text(self) -> str:
        return "".join(u["content"]["text"] for u in self.of_kind("agent_message_chunk"))


@asynccontextmanager
async def zizou_acp(
    client: RecordingClient, base_url: str, home: Path, cwd: Path, *extra: str
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    """`zizou acp` started as an editor starts it, talking to `base_url`'s model."""
    args = [*ACP_COMMAND[1:], "--api-base", base_url, "--sandbox", "off", *extra]
    with (home / "acp-stderr.log").open("ab") as stderr:
        async with spawn_agent_process(
            client,
            zizou_program(),
            *args,
            env=cli_env(home),
            cwd=str(cwd),
            transport_kwargs={"stderr": stderr},
        ) as (conn, process):
            yield conn, process


async def new_session(conn: ClientSideConnection, cwd: Path) -> NewSessionResponse:
    """The editor's first two requests: initialize, then a session in `cwd` with no MCP server."""
    await conn.initialize(protocol_version=1)
    return await conn.new_session(cwd=str(cwd), mcp_servers=[])


def debug_log(root: Path) -> str:
    path = root / "zizou-debug.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


__all__ = ["ACP_COMMAND", "RecordingClient", "debug_log", "zizou_acp", "zizou_program"]
