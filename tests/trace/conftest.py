"""Fixtures: an agent driven by the scripted model, with a debug log recording its turns."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scripted_agent import make_agent

from zizou.agent.loop import Agent
from zizou.providers.fake import ScriptedModel
from zizou.trace import open_debug_log
from zizou.trace.debug_log import DebugLog

CANARY = "zz-canary-key-0123456789-do-not-log"


class KeyedModel(ScriptedModel):
    """The scripted model holding a key, as a real provider's model does."""

    def __init__(self, replies: list[Any], api_key: str = CANARY) -> None:
        super().__init__(replies, id="openai/scripted")
        self.api_key = api_key

    def secrets(self) -> tuple[str, ...]:
        return (self.api_key,)


def make_logged_agent(
    root: Path,
    replies: list[Any],
    history: list[dict[str, Any]] | None = None,
    max_steps: int = 15,
) -> tuple[Agent, DebugLog]:
    agent, _ = make_agent(
        root,
        [],
        max_steps=max_steps,
        model=KeyedModel(replies),
        history=history,
        write_compiled=False,
    )
    log = open_debug_log(root, lambda: agent, agent.prompt, {"stream": True})
    agent.recorders.append(log)
    return agent, log


LoggedAgent = Callable[..., tuple[Agent, DebugLog]]


@pytest.fixture
def canary() -> str:
    return CANARY


@pytest.fixture
def logged_agent() -> LoggedAgent:
    """`logged_agent(root, replies, history=None, max_steps=15) -> (agent, log)`"""
    return make_logged_agent
