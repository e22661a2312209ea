"""How long a step with two slow read-only calls takes, side by side and one after the other.

A model asks, in one step, for two deck-like calls that only read and each take 2 s (a tool
that sleeps). Through `Agent.run_turn` with a scripted model, the step's wall time (from its
StepStarted to its StepFinished) is measured. Target: <= 3.5 s (the two overlap). For contrast
the same two calls are run by a tool declared as writing, which the loop runs one at a time
(about 4 s).

Then the same through the real thing: `zizou -p` against the loopback server, whose main agent
calls two project decks (read-only, no tools) in one step, each deck's model answering after
2 s. The time from the first deck call's start to the last one's end is read off
`--output-format stream-json` as the lines arrive, beside the run's whole wall time.

    .venv/bin/python bench/parallel_calls.py [--sleep 2.0]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, ClassVar

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.loop import Agent, AgentConfig
from zizou.agent.permissions import Rules
from zizou.agent.prompt import PromptBuilder
from zizou.contracts.conversation import Conversation
from zizou.contracts.events import StepFinished, StepStarted
from zizou.contracts.state import SessionState
from zizou.providers.fake import ScriptedModel
from zizou.tools import Access, Registry, Tool, ToolArgs, ToolContext, ToolResult

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from loopback import LoopbackServer

TARGET_S = 3.5


class SlowArgs(ToolArgs):
    question: str


class SlowRead(Tool[SlowArgs]):
    """A deck that only reads, standing in for a child run: it takes `seconds` to answer."""

    name = "slow_read"
    summary = "Answer a question slowly."
    Args = SlowArgs
    label_field = "question"
    access_kind: ClassVar[str] = "read"
    side_by_side: ClassVar[bool] = True
    seconds: ClassVar[float] = 2.0

    def access(self, args: SlowArgs, ctx: ToolContext) -> Access:
        return Access(kind="read")

    async def execute(self, args: SlowArgs, access: Access, ctx: ToolContext) -> ToolResult:
        await asyncio.sleep(self.seconds)
        return ToolResult(True, f"answered {args.question}")


class SlowInOrder(SlowRead):
    """The same work from a tool declared as writing: the loop runs its calls one at a time."""

    name = "slow_in_order"
    access_kind: ClassVar[str] = "write"
    side_by_side: ClassVar[bool] = False

    def access(self, args: SlowArgs, ctx: ToolContext) -> Access:
        return Access(kind="write")


async def step_time(root: Path, tool: str) -> float:
    """The wall time of the step that makes two calls to `tool`."""
    registry = Registry()
    registry.register(SlowRead())
    registry.register(SlowInOrder())
    state = SessionState(Conversation())
    runner = CallRunner(registry, ToolContext(root=root, state=state), ScriptedApprover(), Rules())
    calls = [{"id": f"c{n}", "name": tool, "arguments": f'{{"question": "q{n}"}}'} for n in (1, 2)]
    model = ScriptedModel([{"tool_calls": calls}, {"text": "done"}])
    prompt = PromptBuilder(root, registry, state, write_compiled=False)
    agent = Agent(model, runner, prompt, state.conversation, AgentConfig(max_steps=3))
    began = ended = 0.0
    async for event in agent.run_turn("ask both"):
        if isinstance(event, StepStarted) and event.step == 1:
            began = time.perf_counter()
        elif isinstance(event, StepFinished) and event.step == 1:
            ended = time.perf_counter()
    return ended - began


def deck_run_time(root: Path, seconds: float) -> tuple[float, float]:
    """The wall time of the two deck calls of `zizou -p`'s one step, and of the whole run."""
    decks = root / ".zizou" / "decks"
    decks.mkdir(parents=True)
    front = {
        "description": "Sums up a topic.",
        "input": {"type": "object", "properties": {"topic": {"type": "string"}}},
        "output": {"type": "object", "properties": {"summary": {"type": "string"}}},
        "tools": [],
    }
    for name in ("first", "second"):
        (decks / f"{name}.deck.md").write_text(f"---\n{json.dumps(front)}\n---\nSum it up.\n")

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        return {"name": name, "arguments": json.dumps(arguments)}

    def by(deck: str, **reply: Any) -> dict[str, Any]:
        return {"match": f"You are the deck {deck},", "delay_s": seconds, **reply}

    script = [
        {"match": "from second", "text": "both done"},
        {"tool_calls": [call("first", topic="a"), call("second", topic="b")]},
        by("first", tool_calls=[call("return_output", summary="from first")]),
        by("second", tool_calls=[call("return_output", summary="from second")]),
    ]
    home = root / "home"
    env = {**os.environ, "ZIZOU_HOME": str(home), "OPENAI_API_KEY": "sk-bench"}
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "-p", "go", "--model", "openai/bench"]
        argv += ["--api-base", srv.base_url, "--no-debug-log", "--output-format", "stream-json"]
        began = time.perf_counter()
        seen: dict[str, list[float]] = {}
        with subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, text=True) as proc:
            assert proc.stdout is not None
            for line in proc.stdout:
                kind = json.loads(line)["type"]
                seen.setdefault(kind, []).append(time.perf_counter())
        whole = time.perf_counter() - began
    if proc.returncode != 0 or "result" not in seen:
        raise SystemExit(f"the run failed ({proc.returncode})")
    calls = seen["tool_call_finished"][-1] - seen["tool_call_started"][0]
    return calls, whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sleep", type=float, default=2.0, help="seconds each call takes")
    options = parser.parse_args()
    SlowRead.seconds = options.sleep
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        side_by_side = asyncio.run(step_time(root, "slow_read"))
        in_order = asyncio.run(step_time(root, "slow_in_order"))
    verdict = "ok" if side_by_side <= TARGET_S else "MISSED"
    print(f"two {options.sleep:g} s read calls in one step:")
    print(f"  side by side   {side_by_side:6.2f} s   (target <= {TARGET_S} s: {verdict})")
    print(f"  one at a time  {in_order:6.2f} s   (for contrast)")
    with tempfile.TemporaryDirectory() as tmp:
        calls, whole = deck_run_time(Path(tmp), options.sleep)
    verdict = "ok" if calls <= TARGET_S else "MISSED"
    print(f"zizou -p, two decks whose models answer after {options.sleep:g} s, in one step:")
    print(f"  the two calls  {calls:6.2f} s   (target <= {TARGET_S} s: {verdict})")
    print(f"  whole run      {whole:6.2f} s   (zizou's start-up and two more requests included)")


if __name__ == "__main__":
    main()
