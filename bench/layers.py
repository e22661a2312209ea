"""What a command's copy-on-write layer costs (zizou/sandbox/layer.py), beside the snapshots.

The tree: 11,000 files in 550 directories (source-like text), as in bench/snapshots.py. Each
step is timed over N runs, best and median:

1. `true` in the bubblewrap sandbox alone, and in the sandbox inside its layer (making the
   layer, the namespaces and the mount, the sandbox, and moving nothing back): the cost a
   command pays for its changes to be attributed.
2. Applying a layer: `sed -i` on 100 files (each file's bytes before read for undo, its bytes
   after hashed, then renamed in) and creating 1,000 new files, from the command's end to the
   project holding its changes.
3. For comparison, what the snapshots (the fallback) cost around one command that changed
   nothing on the same tree: the snapshot before it, and the one after.

    .venv/bin/python bench/layers.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from zizou.checkpoints.shadow import ShadowRepo
from zizou.sandbox import Sandbox, detect
from zizou.sandbox.layer_apply import apply_layer

LIMIT = 64 * 1024 * 1024


def make_tree(root: Path, files: int = 11_000, per_dir: int = 20) -> None:
    for n in range(files):
        folder = root / f"pkg{n // per_dir:03d}"
        folder.mkdir(exist_ok=True)
        text = "".join(f"def f{n}_{k}(x):\n    return x + {k}\n" for k in range(50))
        (folder / f"mod{n}.py").write_text(text)


def timed(step: Callable[[], object], runs: int) -> tuple[float, float]:
    took: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        step()
        took.append(time.perf_counter() - start)
    return min(took), statistics.median(took)


def show(what: str, best_median: tuple[float, float]) -> None:
    best, median = best_median
    print(f"{what:<58} best {best * 1000:7.1f} ms   median {median * 1000:7.1f} ms")


def run_in(sandbox: Sandbox, command: str, layered: bool) -> tuple[float, float]:
    """Seconds to run `command` (the layer made and mounted, when `layered`), then to apply."""
    layer = sandbox.layer() if layered else None
    argv = [*sandbox.prefix(layer=layer), "bash", "-c", command]
    start = time.perf_counter()
    subprocess.run(argv, cwd=sandbox.root, check=True, stdin=subprocess.DEVNULL)
    ran = time.perf_counter() - start
    if layer is None:
        return ran, 0.0
    start = time.perf_counter()
    apply_layer(layer, LIMIT)
    return ran, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="zizou-layers-") as scratch:
        os.environ.setdefault("ZIZOU_HOME", str(Path(scratch) / "home"))
        root = Path(scratch) / "project"
        root.mkdir()
        make_tree(root)
        sandbox = Sandbox(root, detect())
        problem = sandbox.layer_problem()
        if problem is not None:
            raise SystemExit(f"no layer here: {problem}")
        show("true, sandbox only", timed(lambda: run_in(sandbox, "true", False), runs))
        show("true, sandbox in its layer (made, mounted, applied)", timed(
            lambda: run_in(sandbox, "true", True), runs))  # fmt: skip
        edits = "sed -i s/return/yield/ pkg00[0-4]/mod*.py"  # 100 files
        applies = [run_in(sandbox, edits, True)[1] for _ in range(runs)]
        show("apply: sed -i on 100 files", (min(applies), statistics.median(applies)))
        made = "mkdir -p new && for n in $(seq 1000); do echo $n > new/f$n.txt; done"
        applies = []
        for _ in range(runs):
            applies.append(run_in(sandbox, made, True)[1])
            subprocess.run(["rm", "-rf", str(root / "new")], check=True)
        show("apply: 1,000 new files", (min(applies), statistics.median(applies)))
        shadow = ShadowRepo(root)
        shadow.snapshot()  # the first one hashes every file
        show("fallback: snapshots before and after a command", timed(
            lambda: (shadow.snapshot(), shadow.snapshot()), runs))  # fmt: skip
        same = os.stat(root).st_dev == os.stat(Path(os.environ["ZIZOU_HOME"])).st_dev
        print(f"layers on the project's file system (applying renames): {same}")


if __name__ == "__main__":
    main()
