"""Serving one editor on stdin/stdout until it closes stdin (or zizou is told to stop): then
every session's turn ends, and with it its commands, jobs and MCP servers."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import cast

from acp import Agent, Client
from acp.agent.connection import AgentSideConnection

from zizou.acp.agent import EditorClient, ZizouAgent
from zizou.acp.stdio import LineTransport, ProtocolPipes, take_stdio
from zizou.config.options import Flags


def serve(flags: Flags) -> int:
    """`zizou acp`: the exit code once the client is gone."""
    pipes = take_stdio()
    return asyncio.run(_serve(flags, pipes))


async def _serve(flags: Flags, pipes: ProtocolPipes) -> int:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, task.cancel)
    agents: list[ZizouAgent] = []

    def agent_for(client: Client) -> Agent:
        agents.append(ZizouAgent(flags, cast(EditorClient, client)))
        # It implements the methods zizou answers; the SDK answers the rest with -32601.
        return cast(Agent, agents[-1])

    connection = AgentSideConnection(agent_for, LineTransport(pipes), listening=False)
    try:
        await connection.listen()
    except asyncio.CancelledError:  # told to stop: end as if the client had gone
        pass
    finally:
        for agent in agents:
            await agent.close()
        await connection.close()
    return 0


__all__ = ["serve"]
