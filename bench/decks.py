"""What a deck's run costs besides its model, and how close to its timeout a slow one stops.

1. Start-up: `DeckEnv.call` on a project deck whose model answers at once with
   `return_output`, in a session built as `zizou -p` builds it (repo map, hooks, decks
   loaded); the time inside the model's `stream` is subtracted, what is left is the child's own
   cost (its registry, prompt, conversation, turn 0, trace file, output check). Target: <= 20 ms.
2. Timeout: a deck with `guardrails.timeout_s` 1 whose model (litellm's real HTTP path against
   the loopback server) would answer after 30 s: how long after 1 s the call returns.
   Target: within 1.5 s.

    .venv/bin/python bench/decks.py [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer  # noqa: E402

from zizou.config.options import RunOptions  # noqa: E402
from zizou.contracts.protocols import ModelEvent, ModelRequest  # noqa: E402
from zizou.decks.tools import Caller, action_of  # noqa: E402
from zizou.headless import HeadlessApprover  # noqa: E402
from zizou.providers import make_model  # noqa: E402
from zizou.providers.fake import ScriptedModel  # noqa: E402
from zizou.session.assembly import build_session  # noqa: E402

DECK = """---
description: Says hello.
input: {type: object, properties: {name: {type: string}}, required: [name]}
output: {type: object, properties: {greeting: {type: string}}, required: [greeting]}
tools: []
guardrails: {timeout_s: 1}
---
Greet the person named in the input.
"""


class Timed:
    """A model whose time inside `stream` is added up."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.id = inner.id
        self.spent = 0.0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        started = time.perf_counter()
        try:
            async for item in self.inner.stream(request):
                yield item
        finally:
            self.spent += time.perf_counter() - started

    def call_parameters(self) -> dict[str, Any]:
        return {"model": self.id}

    def secrets(self) -> tuple[str, ...]:
        return ()


def project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="zizou-bench-decks-"))
    (root / ".zizou" / "decks").mkdir(parents=True)
    (root / ".zizou" / "decks" / "hello.deck.md").write_text(DECK)
    (root / "app.py").write_text("def main():\n    return 1\n")
    return root


def start_up(runs: int) -> list[float]:
    root = project()
    reply = {"tool_calls": [{"name": "return_output", "arguments": {"greeting": "hi"}}]}
    model = Timed(ScriptedModel([reply] * (runs + 5)))
    session = build_session(
        RunOptions(root=root, debug_log=False), model, HeadlessApprover(), persist=False
    )
    env = session.decks
    assert env is not None
    deck = env.decks.get("hello")
    assert deck is not None
    costs: list[float] = []

    async def one() -> float:
        before = model.spent
        started = time.perf_counter()
        outcome = await env.call(deck, action_of(deck), {"name": "Ada"}, Caller(), None)
        assert outcome.ok, outcome.message
        return (time.perf_counter() - started) - (model.spent - before)

    async def all_runs() -> None:
        await one()  # warm: imports, the first trace directory
        for _ in range(runs):
            costs.append(await one())

    asyncio.run(all_runs())
    session.close()
    return costs


def timeout_overshoot(runs: int) -> list[float]:
    root = project()
    script = [{"delay_s": 30, "text": "late"}] * runs
    overshoots: list[float] = []
    with LoopbackServer(script) as srv:
        model = make_model("openai/test-model", srv.base_url, "sk-test")
        runtime = build_session(
            RunOptions(root=root, debug_log=False), model, HeadlessApprover(), persist=False
        )
        env = runtime.decks
        assert env is not None
        deck = env.decks.get("hello")
        assert deck is not None

        async def one() -> float:
            started = time.perf_counter()
            outcome = await env.call(deck, action_of(deck), {"name": "Ada"}, Caller(), None)
            assert outcome.code == "timeout", outcome
            return time.perf_counter() - started - deck.guardrails.timeout_s

        for _ in range(runs):
            overshoots.append(asyncio.run(one()))
        runtime.close()
    return overshoots


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    costs = [c * 1000 for c in start_up(args.runs)]
    costs.sort()
    p95 = costs[int(len(costs) * 0.95) - 1]
    print(f"child start-up besides the model ({args.runs} runs)")
    print(f"  median {statistics.median(costs):6.2f} ms   p95 {p95:6.2f} ms   target <= 20 ms")
    overshoots = sorted(timeout_overshoot(5))
    print("timeout 1 s, the model would answer after 30 s (litellm over loopback, 5 runs)")
    print(
        f"  returned after the timeout by: median {statistics.median(overshoots):.3f} s, "
        f"worst {overshoots[-1]:.3f} s   target <= 1.5 s"
    )


if __name__ == "__main__":
    main()
