"""What keeping a command's whole output costs, and how fast its lines are read back.

Runs `seq 1 N` (default 2,000,000 lines, 15 MB) through the run_bash tool, which keeps the whole
output and builds the cut view the model reads, next to the same command with its output only
counted (no file, no view); then reads single lines near the start, the middle and the end with
read_output, and a 2,000-line range; and prints the times against the targets.
Targets: keeping the output adds <= 2 ms per MB of output; a read_output call <= 50 ms.

    .venv/bin/python bench/jobs.py [--lines 2000000] [--runs 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from zizou.tools.base import ToolContext
from zizou.tools.jobs import Job, JobTable, OutputSpool
from zizou.tools.read_output import TOOL as READ_OUTPUT
from zizou.tools.read_output import ReadOutputArgs
from zizou.tools.run_bash import TOOL, RunBashArgs


async def counted_only(root: Path, command: str) -> float:
    started = time.perf_counter()
    spool = OutputSpool(None, keep=False)
    argv = ["bash", "-c", command]
    job = await Job.start("b", command, argv, cwd=root, env={"PATH": "/usr/bin:/bin"}, spool=spool)
    await job.wait()
    return time.perf_counter() - started


async def kept(ctx: ToolContext, command: str) -> float:
    started = time.perf_counter()
    result = await TOOL.run(RunBashArgs(command=command), ctx)
    assert "lines shown (head and tail)" in result.output, result.output[:200]
    return time.perf_counter() - started


async def read(ctx: ToolContext, output_id: str, start: int, end: int) -> float:
    started = time.perf_counter()
    args = ReadOutputArgs(id=output_id, start_line=start, end_line=end)
    result = await READ_OUTPUT.run(args, ctx)
    assert result.ok and str(start) in result.output, result.output[:200]
    return time.perf_counter() - started


async def main(lines: int, runs: int) -> None:
    command = f"seq 1 {lines}"
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ctx = ToolContext(root=root, jobs=JobTable(background_after_s=0))
        plain, whole = [], []
        for _ in range(runs):  # interleaved, so a busy moment hits both alike
            plain.append(await counted_only(root, command))
            whole.append(await kept(ctx, command))
        base, full = statistics.median(plain), statistics.median(whole)
        megabytes = sum(len(f"{i}\n") for i in range(1, lines + 1)) / 1e6
        per_mb = (full - base) * 1000 / megabytes
        print(
            f"{command} ({megabytes:.1f} MB): output counted only {base * 1000:.0f} ms, kept with "
            f"the model's view {full * 1000:.0f} ms: +{per_mb:.1f} ms per MB (target <= 2)"
        )
        output_id = ctx.jobs.ids()[-1]
        for start, end in ((2, 2), (lines // 2, lines // 2), (lines - 1, lines - 1)):
            took = statistics.median([await read(ctx, output_id, start, end) for _ in range(runs)])
            print(f"read_output line {start:,}: {took * 1000:.1f} ms (target <= 50 ms)")
        middle = lines // 2
        took = statistics.median(
            [await read(ctx, output_id, middle, middle + 1999) for _ in range(runs)]
        )
        span = f"{middle:,}-{middle + 1999:,}"
        print(f"read_output lines {span}: {took * 1000:.1f} ms (target <= 50 ms)")
        ctx.jobs.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.lines, args.runs))
