"""An agent over the scripted model, with the real registry, runner and prompt: the loop's tests
build theirs here."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.gates import CallGates
from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.permissions import Rules
from zizou.agent.prompt import PromptBuilder
from zizou.agent.spending import Spending
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import AnyEvent
from zizou.contracts.protocols import Approver, ChangeRecorder, StepEffects, TurnRecorder
from zizou.contracts.state import SessionState
from zizou.providers.fake import ScriptedModel
from zizou.tools import ToolContext, default_registry


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def make_agent(
    root: Path,
    replies: list[Any],
    approver: Approver | None = None,
    rules: Rules | None = None,
    max_steps: int = 15,
    *,
    model: ScriptedModel | None = None,
    history: list[dict[str, Any]] | None = None,
    write_compiled: bool = True,
    effects: StepEffects | None = None,
    spending: Spending | None = None,
    finished: Callable[[], bool] | None = None,
    changes: ChangeRecorder | None = None,
    recorders: list[TurnRecorder] | None = None,
) -> tuple[Agent, ScriptedModel]:
    """An agent over `model` (default: one playing `replies`), its history `history`; the
    rest, the parts of a run that tests give (hooks' effects, spending, a change recorder)."""
    model = model or ScriptedModel(replies)
    registry = default_registry()
    state = SessionState(Conversation(history))
    ctx = ToolContext(root=root, state=state)
    gates = CallGates.of(approver or ScriptedApprover(), rules or Rules(), changes=changes)
    runner = CallRunner(registry, ctx, gates)
    prompt = PromptBuilder(root, registry, state, write_compiled=write_compiled)
    limits = AgentConfig(max_steps=max_steps)
    agent = Agent(
        model,
        runner,
        prompt,
        state.conversation,
        limits,
        recorders,
        effects=effects,
        spending=spending,
        finished=finished,
    )
    return agent, model


async def collect(agent: Agent, text: str) -> list[AnyEvent]:
    return [event async for event in agent.run_turn(text)]


def assert_history_valid(messages: list[dict[str, Any]]) -> None:
    pending: set[str] = set()
    for message in messages:
        if message["role"] == "tool":
            pending.remove(message["tool_call_id"])
        else:
            assert not pending, f"unanswered tool calls {pending} before a {message['role']}"
            pending = {c["id"] for c in message.get("tool_calls") or []}
    assert not pending
