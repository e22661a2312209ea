"""What a compute deck's worker process costs: its start, and a whole trivial run.

1. Start-up: from starting `python -m zizou.decks.worker` to its first message (`ready`: the
   interpreter up, the worker and the deck API imported), then the worker killed and reaped.
2. A whole run: `run_compute` on a deck whose `run` returns at once: the worker started, the
   deck's text sent and run, the output checked, the process group ended and reaped (what
   `DeckEnv.call` adds around it is bench/decks.py's).

Both with the sandbox off and, where bubblewrap works, on. Target: <= 150 ms.

    .venv/bin/python bench/compute_worker.py [--runs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from zizou.config.options import RunOptions
from zizou.decks.compute import run_compute, start_worker, stop_worker
from zizou.decks.run import DeckEnv
from zizou.decks.spec import Deck
from zizou.decks.tools import Caller
from zizou.decks.trace import Trace
from zizou.headless import HeadlessApprover
from zizou.providers.fake import ScriptedModel
from zizou.sandbox import SandboxMode, detect
from zizou.session.assembly import build_session

DECK = """\
from zizou.decks.api import Deck

DECK = Deck(name="quick", description="Answers at once.", mode="compute", input="string",
            output="string")


async def run(input, ctx):
    return "done: " + input
"""
TARGET_MS = 150


def project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="zizou-bench-compute-"))
    (root / ".zizou" / "decks").mkdir(parents=True)
    (root / ".zizou" / "decks" / "quick.deck.py").write_text(DECK)
    return root


def session(root: Path, sandbox: SandboxMode) -> tuple[DeckEnv, Deck]:
    options = RunOptions(root=root, debug_log=False, trust_hooks=True, sandbox=sandbox)
    kernel = build_session(options, ScriptedModel([]), HeadlessApprover(), persist=False)
    env = kernel.decks
    assert env is not None
    deck = env.decks.get("quick")
    assert deck is not None, env.decks.warnings
    return env, deck


async def start_up(env: DeckEnv, deck: Deck) -> float:
    started = time.perf_counter()
    proc = await start_worker(env, deck)
    assert proc.stdout is not None
    first = await proc.stdout.readline()
    took = time.perf_counter() - started
    assert b'"ready"' in first, first
    await stop_worker(proc, graceful=False)
    return took


async def whole_run(env: DeckEnv, deck: Deck) -> float:
    trace = Trace(env.root, "bench", persist=False)
    child = Caller(1, (deck.name,), trace.run_id, "a0", lineage=(deck,))
    ids = {"actionCallId": "a0", "parentActionCallId": None, "deckPath": "quick.deck.py"}
    started = time.perf_counter()
    outcome = await run_compute(env, deck, "x", child, None, trace, ids)
    took = time.perf_counter() - started
    assert outcome.ok and outcome.output == "done: x", outcome
    return took


def measure(runs: int, sandbox: SandboxMode) -> None:
    env, deck = session(project(), sandbox)

    async def all_runs() -> tuple[list[float], list[float]]:
        await whole_run(env, deck)  # warm: the sandbox's walk of the project, page cache
        starts = [await start_up(env, deck) for _ in range(runs)]
        wholes = [await whole_run(env, deck) for _ in range(runs)]
        return starts, wholes

    starts, wholes = asyncio.run(all_runs())
    print(f"sandbox {sandbox} ({runs} runs)")
    report("  start to first message", starts)
    report("  whole trivial run     ", wholes)


def report(what: str, seconds: list[float]) -> None:
    ms = sorted(s * 1000 for s in seconds)
    p95 = ms[max(0, round(len(ms) * 0.95) - 1)]
    print(
        f"{what}  median {statistics.median(ms):6.1f} ms   p95 {p95:6.1f} ms   "
        f"target <= {TARGET_MS} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    measure(args.runs, "off")
    status = detect("auto")
    if status.state == "on":
        measure(args.runs, "auto")
    else:
        print(f"sandbox on: not measured ({status.problem})")


if __name__ == "__main__":
    main()
