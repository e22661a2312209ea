"""Assembles one agent session (model, tools, prompt, permissions) for either front end.

The TUI and headless mode both call `build_runtime`, so they run the very same loop.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from zizou.core.calls import CallRunner
from zizou.core.loop import Agent, AgentConfig
from zizou.core.permissions import Rules
from zizou.core.prompt import PromptBuilder
from zizou.core.protocols import Approver, Model
from zizou.tools import ToolContext, default_registry
from zizou.tools._env import scrubbed_env


@dataclass
class Runtime:
    session_id: str
    agent: Agent
    ctx: ToolContext
    prompt: PromptBuilder


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


def build_runtime(
    root: Path, model: Model, approver: Approver, rules: Rules, max_steps: int
) -> Runtime:
    registry = default_registry()
    ctx = ToolContext(root=root, env=scrubbed_env(os.environ))
    prompt = PromptBuilder(root, registry, ctx.workspace)
    runner = CallRunner(registry, ctx, approver, rules)
    agent = Agent(model, runner, prompt, config=AgentConfig(max_steps=max_steps))
    return Runtime(new_session_id(), agent, ctx, prompt)
