"""What the hook runtime costs per model step (median and p95 microseconds).

`plan_step` with only the built-in modes hook (the baseline); plus one project hook file, loaded
from its text like `.zizou/hooks/*.py`, with 10 module-level effects (5 whose deps change every
3rd step, 3 every step reading `ctx.last_tool` / `ctx.task_state`, setting hook state or
`step("systems")`, 2 narrowing the tools) and a render with 2 systems, 2 variables and a
`.remind()`; the same in plan mode; and `Agent.build_request` (repo map off) without and with
the 10. A tool call finishes between steps, untimed. Target: 10 effects cost <= 2 ms per step.

    .venv/bin/python bench/hooks.py [--steps 2000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripted_agent import make_agent  # noqa: E402

from zizou.contracts.events import ToolCallFinished, ToolCallStarted  # noqa: E402
from zizou.contracts.protocols import StepInput  # noqa: E402
from zizou.contracts.state import SessionState  # noqa: E402
from zizou.contracts.task_state import TaskState, builtin_schema  # noqa: E402
from zizou.hooks.modes import modes_hook  # noqa: E402
from zizou.hooks.runtime import HookRuntime, HookSource  # noqa: E402
from zizou.tools import default_registry  # noqa: E402

TURN = 25
HOOK = """
from zizou.hooks import def_state, effect
failures, set_failures = def_state("failures", 0)
last_seen, set_last_seen = def_state("last_seen", "")
summary = {}
def _periodic(n):
    def run(ctx, step):
        summary[n] = (len(ctx.messages), ctx.usage.input_tokens, len(ctx.workspace))
    run.__name__ = f"periodic_{n}"
    return run
for _n in range(5):
    effect(deps=lambda ctx: [ctx.step_number // 3])(_periodic(_n))
@effect()
def count_failures(ctx, step):
    if ctx.last_tool is not None and not ctx.last_tool.ok:
        set_failures(lambda old: old + 1)
@effect()
def remember_tool(ctx, step):
    if ctx.last_tool is not None:
        set_last_seen(f"{ctx.last_tool.name}@{ctx.last_tool.step}")
@effect()
def open_items(ctx, step):
    plan = (ctx.task_state or {}).get("plan") or []
    left = [item["title"] for item in plan if item.get("status") != "done"]
    step("systems", {"open": "Open: " + "; ".join(left), "style": "Keep answers short."})
@effect()
def no_deletes(ctx, step):
    step("tools", ctx.tools.filter(lambda t: t.access != "delete").names(), why="no deletes")
@effect()
def careful_after_failures(ctx, step):
    risky = ("delete", "exec") if failures() < 3 else ("delete", "exec", "write", "open")
    step("tools", ctx.tools.filter(lambda t: t.access not in risky).names(), why="careful")
def render(p):
    p.system("style", "Keep answers short; cite file:line.")
    rule = p.system("generated", "Never edit files under build/ or dist/.")
    p.variable("failures", failures())
    p.variable("summary", {str(k): v for k, v in summary.items()})
    if p.ctx.step_number % 5 == 0:
        rule.remind()
"""


def session_state() -> SessionState:
    state = SessionState()
    state.task = TaskState(builtin_schema())
    plan = [{"id": f"p{i}", "title": f"step {i}", "status": "pending"} for i in range(8)]
    problems = state.task.restore(
        {"goal": "b", "plan": plan, "notes": [], "questions": [], "files": []}
    )
    assert not problems, problems
    return state


def hook_runtime(state: SessionState, effects: bool) -> HookRuntime:
    rt = HookRuntime(default_registry(), state)
    rt.add(modes_hook())
    if effects:
        name = ".zizou/hooks/bench.py"
        problem = rt.add(HookSource(name, "project", "python", HOOK, Path(name), "x"))
        assert problem is None, problem
    return rt


def finish_tool(rt: HookRuntime, i: int) -> None:
    arguments = json.dumps({"path": f"module_{i % 5}.py"})
    rt.emit(ToolCallStarted(f"c{i}", "read_file", arguments))
    rt.emit(ToolCallFinished(f"c{i}", "read_file", i % 7 != 0, "line\n" * 40, 0.01))


def timed(rt: HookRuntime, run: Callable[[int], object], steps: int) -> list[float]:
    for i in range(200):  # warm-up
        finish_tool(rt, i)
        run(i)
    samples = []
    for i in range(steps):
        finish_tool(rt, i)
        started = time.perf_counter()
        run(i)
        samples.append((time.perf_counter() - started) * 1e6)
    return samples


def plan_steps(rt: HookRuntime, steps: int) -> list[float]:
    tools = tuple(tool.name for tool in rt.registry if tool.advertised)
    messages = tuple({"role": "user", "content": f"message {k}"} for k in range(20))
    return timed(rt, lambda i: rt.plan_step(StepInput(i % TURN + 1, 1, tools, messages)), steps)


def agent_steps(root: Path, effects: bool, steps: int) -> list[float]:
    agent, _ = make_agent(root, [], write_compiled=False)
    agent.prompt.map_tokens = 0  # type: ignore[attr-defined]
    agent.conversation.add_user("look at the modules")
    state: SessionState = agent.prompt.state  # type: ignore[attr-defined]
    state.task = session_state().task
    rt = hook_runtime(state, effects)
    agent.effects, agent.turns = rt, 1
    return timed(rt, lambda i: agent.build_request(i % TURN + 1), steps)


def stats(samples: list[float]) -> tuple[float, float]:
    return statistics.median(samples), statistics.quantiles(samples, n=20)[-1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=2000)
    steps = parser.parse_args().steps
    base = stats(plan_steps(hook_runtime(session_state(), False), steps))
    ten = stats(plan_steps(hook_runtime(session_state(), True), steps))
    plan_state = session_state()
    plan_state.set_mode("plan")
    plan = stats(plan_steps(hook_runtime(plan_state, True), steps))
    with tempfile.TemporaryDirectory() as tmp:
        bare = stats(agent_steps(Path(tmp), False, steps))
        full = stats(agent_steps(Path(tmp), True, steps))
    print(f"Hook runtime per model step, {steps:,} steps after warm-up: median, p95 (us)")
    rows = {
        "plan_step: modes hook only (build)": base,
        "plan_step: + 10 effects (build)": ten,
        "plan_step: + 10 effects (plan mode)": plan,
        "build_request: modes hook only": bare,
        "build_request: + 10 effects": full,
        "10 effects over the baseline, plan_step": (ten[0] - base[0], ten[1] - base[1]),
        "10 effects over the baseline, build_request": (full[0] - bare[0], full[1] - bare[1]),
    }
    for name, (median, p95) in rows.items():
        print(f"  {name:<44} {median:8.1f} {p95:8.1f}")
    print("  (an overhead row's p95 is the difference of two p95s: noisy, it may go negative)")
    worst = max(ten[1], plan[1]) / 1000  # every hook's whole plan_step, the modes hook included
    verdict = "PASS" if worst <= 2 else "FAIL"
    print(f"Target: 10 effects cost <= 2 ms per step: {verdict} (p95 of plan_step {worst:.3f} ms)")


if __name__ == "__main__":
    main()
