"""What the sandbox adds to a run_bash call.

Runs `true` through run_bash's own `run_shell`, unsandboxed and in the sandbox (interleaved,
median of N), on a generated project of the given size (default 11,000 files in nested
directories, with a `.git`, a nested repository and a few secret files), and prints the added
time. The walk that finds `.git` and secret files runs in the background after each command,
so it is not on the command's path; its cost is printed on its own line.
Target: the sandbox adds <= 30 ms to a run_bash call.

    .venv/bin/python bench/sandbox.py [--runs 30] [--files 11000] [--project DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from zizou.sandbox import Sandbox, detect
from zizou.sandbox.protected import find_protected
from zizou.tools.run_bash import run_shell


def make_project(root: Path, files: int) -> None:
    (root / ".git").mkdir(parents=True)
    (root / "vendor" / "dep" / ".git").mkdir(parents=True)
    for name in (".env", "config/.env.local", "deploy/key.pem"):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("SECRET=1\n")
    per_dir = 40
    for n in range(files):
        directory = root / "src" / f"pkg{n // (per_dir * 25)}" / f"mod{(n // per_dir) % 25}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"file{n}.py").write_text(f"x = {n}\n")


def once(root: Path, prefix: list[str]) -> float:
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    started = time.perf_counter()
    outcome = asyncio.run(run_shell("true", cwd=root, env=env, timeout_s=30, prefix=prefix))
    elapsed = time.perf_counter() - started
    assert outcome.exit_code == 0, outcome.output
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--files", type=int, default=11_000)
    parser.add_argument("--project", type=Path, help="measure on this tree instead")
    args = parser.parse_args()
    status = detect()
    if status.state != "on":
        raise SystemExit(f"no sandbox here: {status.problem}")
    with tempfile.TemporaryDirectory() as tmp:
        root = args.project or Path(tmp) / "project"
        if args.project is None:
            make_project(root, args.files)
        sandbox = Sandbox(root, status)
        sandbox.protected()  # the first walk, as after the session's first command
        plain, boxed = [], []
        for _ in range(args.runs):
            plain.append(once(root, []))
            boxed.append(once(root, sandbox.prefix()))
        walks = []
        for _ in range(5):
            started = time.perf_counter()
            found = find_protected(root)
            walks.append(time.perf_counter() - started)
    p, b = statistics.median(plain), statistics.median(boxed)
    print(f"project: {root if args.project else f'{args.files:,} generated files'}")
    print(f"protected: {len(found.git)} .git, {len(found.secrets)} secret files")
    print(f"run_bash `true` unsandboxed: median {p * 1000:.1f} ms over {args.runs} runs")
    print(f"run_bash `true` in {status.kind}:  median {b * 1000:.1f} ms")
    print(f"added by the sandbox: {(b - p) * 1000:.1f} ms (target <= 30 ms), {b / p:.2f}x")
    print(f"background walk for .git and secrets: median {statistics.median(walks) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
