"""The grep tool beside ripgrep itself, on the same tree.

Prints the median wall time of the grep tool (a literal pattern over the whole project, through
`Grep.run` on one event loop kept across the calls, as the agent's is: rg started with zizou's
flags and globs, its output read, sorted and cut) and of
`rg PATTERN .` with ripgrep's defaults in the same directory, runs interleaved, and the ratio.
Target: the tool within 1.2x of rg.

    .venv/bin/python bench/grep.py /path/to/a/checkout [--pattern TEXT] [--runs 15]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import time
from pathlib import Path

from zizou.tools._rg import find_rg
from zizou.tools.base import ToolContext
from zizou.tools.grep import TOOL, GrepArgs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree", type=Path)
    parser.add_argument("--pattern", default="def visit_")
    parser.add_argument("--runs", type=int, default=15)
    opts = parser.parse_args()
    root = opts.tree.resolve()
    rg = find_rg()
    assert rg is not None, "no rg"
    ctx = ToolContext(root=root)
    args = GrepArgs(pattern=opts.pattern, fixed_strings=True)
    loop = asyncio.new_event_loop()  # the agent's loop: already running when a tool is called

    def tool() -> str:
        result = loop.run_until_complete(TOOL.run(args, ctx))
        assert result.ok, result.output
        return result.output

    def bare() -> str:
        argv = [rg, "--fixed-strings", opts.pattern, "."]
        return subprocess.run(argv, cwd=root, capture_output=True, text=True).stdout

    tool(), bare()  # warm the page cache
    times: dict[str, list[float]] = {"tool": [], "rg": []}
    for _ in range(opts.runs):
        for name, run in (("tool", tool), ("rg", bare)):
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    tool_ms = statistics.median(times["tool"]) * 1000
    rg_ms = statistics.median(times["rg"]) * 1000
    print(f"grep tool, {opts.pattern!r} in {root.name}: {tool_ms:8.1f} ms")
    print(f"rg with its defaults, same tree:   {rg_ms:8.1f} ms")
    print(f"ratio                               {tool_ms / rg_ms:8.2f}x   (target <= 1.2x)")
    loop.close()


if __name__ == "__main__":
    main()
