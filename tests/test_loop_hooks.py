"""The loop with hooks: the history the hooks see, the window applied after them, and what a
shortened copy after a context overflow may keep."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from scripted_agent import collect, make_agent

from zizou.contracts.events import Retrying
from zizou.contracts.protocols import ModelEvent, ModelReply, ModelRequest, StepChanges, StepInput
from zizou.providers.fake import ScriptedModel


class OverflowOnce(ScriptedModel):
    """Says the first request overflowed and resends it whole (as the retry layer's shortened
    copy would be), then answers."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        if len(self.requests) == 1:
            yield Retrying(2, 0.0, "too long", resent_messages=list(request.messages))
        yield ModelReply(text="ok")


class Remind:
    def __init__(self) -> None:
        self.seen: list[StepInput] = []

    def plan_step(self, step: StepInput) -> StepChanges:
        self.seen.append(step)
        return StepChanges(reminders=(("hook:r", "remember the rule"),))


def test_a_reminder_is_not_stored_when_an_overflow_shortens_the_history(tmp_path: Path) -> None:
    agent, model = make_agent(tmp_path, [], model=OverflowOnce(), effects=Remind())
    asyncio.run(collect(agent, "hello"))
    assert model.requests[0].messages[-1]["content"].startswith('<reminder source="hook:r">')
    stored = [m.get("content") for m in agent.conversation.messages]
    assert stored == ["hello", "ok"]


def test_hooks_see_the_whole_history_and_the_window_applies_after_them(tmp_path: Path) -> None:
    history: list[dict[str, Any]] = []
    for n in range(3):
        history += [{"role": "user", "content": f"q{n}"}, {"role": "assistant", "content": "a"}]
    hooks = Remind()
    agent, model = make_agent(tmp_path, [{"text": "done"}], history=history, effects=hooks)
    agent.set_history_window(1)
    asyncio.run(collect(agent, "q3"))
    assert [m["content"] for m in hooks.seen[0].messages][::2] == ["q0", "q1", "q2", "q3"]
    sent = [m["content"] for m in model.requests[0].messages]
    assert sent[0] == "q2" and sent[-2] == "q3" and sent[-1].startswith("<reminder")
    assert not model.requests[0].whole_history
