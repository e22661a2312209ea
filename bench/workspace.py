"""What the workspace and the step pipeline cost per step.

1. The WORKSPACE layer: 20 windows (10 regex, 10 line windows) over five 5,000-line files,
   rendered warm (files unchanged since the last step) and after one file changed. Target: warm
   <= 5 ms per step.
   Also: how long a catastrophic regex (`(a+)+$` on a 50,000-character line) runs before it is
   stopped (target: the tool answers within 300 ms).
2. The pipeline: `Agent.build_request` (step effects, every layer, the tools offered, the plan)
   with the repo map off and those 20 windows open, minus the WORKSPACE layer's own time; and
   the same with no windows. Target: <= 10 ms per step besides the repo map.

Prints medians over N steps.

    .venv/bin/python bench/workspace.py [--steps 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from scripted_agent import make_agent  # noqa: E402

from zizou.agent.workspace_layer import WorkspaceLayer  # noqa: E402
from zizou.contracts.state import SessionState  # noqa: E402
from zizou.contracts.windows import Anchor, WindowError, WindowSpec, resolve  # noqa: E402

FILES = 5
LINES = 5_000


def make_project(root: Path) -> list[str]:
    names = []
    for n in range(FILES):
        lines = []
        for i in range(1, LINES + 1):
            if i % 50 == 1:
                lines.append(f"def function_{n}_{i}(value, other=None):")
            else:
                lines.append(f"    result_{i} = compute(value, {i}) + other_thing({i % 7})")
        name = f"module_{n}.py"
        (root / name).write_text("\n".join(lines) + "\n")
        names.append(name)
    return names


def open_windows(state: SessionState, names: list[str]) -> None:
    for k in range(20):
        name = names[k % FILES]
        if k % 2:
            start = 200 * k + 1
            spec = WindowSpec(start=Anchor(line=start), end=Anchor(line=start + 30))
        else:
            spec = WindowSpec(
                regex=rf"def function_{k % FILES}_{100 * k + 1}\(.*\n(?:    .*\n)*?.*"
            )
        state.open_window(name, spec)


def timed(fn: object, steps: int) -> float:
    samples = []
    for _ in range(steps):
        started = time.perf_counter()
        fn()  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    steps = parser.parse_args().steps
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        names = make_project(root)
        state = SessionState()
        open_windows(state, names)
        layer = WorkspaceLayer(root, state)
        first = layer.render(32_000)
        assert first.text.count("\n## ") == 19, first.note
        warm = timed(lambda: layer.render(32_000), steps)

        def changed() -> None:
            path = root / names[0]
            path.write_text(path.read_text() + "# touched\n")
            layer.render(32_000)

        after_change = timed(changed, max(10, steps // 10))
        print(f"WORKSPACE layer, 20 windows over {FILES} x {LINES:,}-line files")
        print(f"  warm (files unchanged):   {warm:6.2f} ms per step   (target <= 5 ms)")
        print(f"  one file changed outside: {after_change:6.2f} ms per step")
        print(f"  layer size: {len(first.text):,} characters")

        agent, _ = make_agent(root, [], write_compiled=False)
        agent.prompt.map_tokens = 0  # type: ignore[attr-defined]
        agent.conversation.add_user("look at the modules")
        bare = timed(lambda: agent.build_request(1), steps)
        open_windows(agent.prompt.state, names)  # type: ignore[attr-defined]
        agent.build_request(1)
        full = timed(lambda: agent.build_request(1), steps)
        (root / "long.txt").write_text("a" * 50_000 + "!\n")
        bad = WindowSpec(regex=r"(a+)+$")
        lines = [("a" * 50_000) + "!"]

        def catastrophic() -> None:
            try:
                resolve(bad, lines)
            except WindowError:
                return
            raise AssertionError("the catastrophic regex was not stopped")

        stopped = timed(catastrophic, 5)
        print(
            f"  a catastrophic regex on a 50,000-character line: stopped after {stopped:.0f} ms "
            "(target: answered within 300 ms)"
        )
        print("Step pipeline (build_request), repo map off")
        print(f"  no windows:               {bare:6.2f} ms per step   (target <= 10 ms)")
        print(f"  20 windows:               {full:6.2f} ms per step")
        print(f"  besides the workspace:    {max(0.0, full - warm):6.2f} ms per step")
        agent.prompt.write_compiled = True  # type: ignore[attr-defined]
        written = timed(lambda: agent.build_request(1), steps)
        print(f"  20 windows, writing .zizou/compiled/prompt.md as the app does: {written:.2f} ms")


if __name__ == "__main__":
    main()
