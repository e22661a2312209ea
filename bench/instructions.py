"""What loading instructions costs at session start.

A project with 200 instruction files (100 `.zizou/instructions/*.md`, 100
`.claude/skills/*/SKILL.md`, each 2-6 KB with front matter like real skills), plus the
builtins. Each run is a fresh Python process (nothing of zizou's is warm but the OS page
cache), timing `InstructionSet.load(root)` alone; the module's import is timed apart. Also
`catalogue()` and a `lookup()`, warm. Target: load <= 30 ms (median).

    .venv/bin/python bench/instructions.py [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = 100
SKILL_FILES = 100

CHILD = """
import json, sys, time
started = time.perf_counter()
from zizou.contracts.instructions import InstructionSet
imported = time.perf_counter()
items = InstructionSet.load(__import__("pathlib").Path(sys.argv[1]))
loaded = time.perf_counter()
catalogue = items.catalogue()
listed = time.perf_counter()
text = items.lookup("skill-050")
looked = time.perf_counter()
assert len(items) == 206 and not items.warnings, (len(items), items.warnings)
print(json.dumps({
    "import": imported - started, "load": loaded - imported,
    "catalogue": listed - loaded, "lookup": looked - listed,
}))
"""


def body(n: int) -> str:
    steps = "\n".join(
        f"{k}. Step {k} of procedure {n}: check the inputs, run `make check-{k}`, and read the "
        "output carefully before going on to the next step."
        for k in range(1, 8 + n % 25)
    )
    return (
        f"# Procedure {n}\n\nUse this procedure when the task touches area {n}. It explains "
        f"what to check first.\n\n## Steps\n\n{steps}\n\n## Notes\n\nKeep changes small.\n"
    )


def make_project(root: Path) -> None:
    folder = root / ".zizou" / "instructions"
    folder.mkdir(parents=True)
    for n in range(PROJECT_FILES):
        (folder / f"project-{n:03d}.md").write_text(
            f"---\nname: project-{n:03d}\ndescription: Do project task {n} the house way.\n"
            f"sticky: {'true' if n % 10 == 0 else 'false'}\n---\n{body(n)}"
        )
    for n in range(SKILL_FILES):
        skill = root / ".claude" / "skills" / f"skill-{n:03d}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: skill-{n:03d}\ndescription: >-\n  Handle skill {n} requests. Use when\n"
            f"  the user asks about area {n}.\nallowed-tools: Read, Grep, Bash\nmetadata:\n"
            f'  author: bench\n  version: "1.{n}"\n---\n{body(n)}'
        )
        (skill / "reference.md").write_text("Reference material.\n" * 50)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        root.mkdir()
        home.mkdir()
        make_project(root)
        env = {**os.environ, "ZIZOU_HOME": str(home), "PYTHONPATH": str(ROOT)}
        samples = [
            json.loads(
                subprocess.run(
                    [sys.executable, "-c", CHILD, str(root)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout
            )
            for _ in range(runs)
        ]
    print(f"{PROJECT_FILES + SKILL_FILES} files + builtins, {runs} fresh processes, medians:")
    for key in ("import", "load", "catalogue", "lookup"):
        values = sorted(sample[key] * 1000 for sample in samples)
        print(
            f"  {key:<9} {statistics.median(values):7.2f} ms"
            f"  (min {values[0]:.2f}, max {values[-1]:.2f})"
        )
    load = statistics.median(sample["load"] for sample in samples) * 1000
    print(f"load target <= 30 ms: {'ok' if load <= 30 else 'MISSED'}")


if __name__ == "__main__":
    main()
