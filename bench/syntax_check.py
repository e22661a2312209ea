"""What the syntax check adds to an edit of a 5,000-line Python file.

Each edit runs through the call runner as the model's would (parsed, allowed, the edit engine,
the atomic write, the result), once without the checks and once with the syntax check, on a
file the model read first (as it must before an edit: the read prepares the file's tree) and on
one it did not (the first edit parses the old content whole). Target: the check adds <= 20 ms.

    .venv/bin/python bench/syntax_check.py [--runs 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.calls import CallRunner
from zizou.agent.permissions import Rules
from zizou.checks.checkers import CheckSettings
from zizou.checks.service import EditChecks
from zizou.contracts.conversation import Conversation
from zizou.contracts.protocols import ToolCall
from zizou.contracts.state import SessionState
from zizou.tools import ToolContext, ToolResult, default_registry

TARGET_MS = 20.0
LINES = 5_000


def source() -> str:
    """A 5,000-line module of ordinary Python: classes, methods, comprehensions, strings."""
    block = [
        "class Store{n}:",
        '    """Keeps things, number {n}."""',
        "",
        "    def __init__(self, root: str) -> None:",
        "        self.root = root",
        "        self.items: dict[str, int] = {{}}",
        "",
        "    def put(self, key: str, value: int) -> int:",
        "        self.items[key] = value * {n}",
        "        return sum(v for v in self.items.values() if v > 0)",
        "",
        "",
    ]
    lines: list[str] = []
    n = 0
    while len(lines) < LINES:
        lines += [line.format(n=n) for line in block]
        n += 1
    return "\n".join(lines[:LINES]) + "\n"


async def call(runner: CallRunner, name: str, **arguments: object) -> ToolResult:
    parsed = runner.parse(ToolCall("c1", name, json.dumps(arguments)))
    result = None
    async for item in runner.run(parsed):
        if isinstance(item, ToolResult):
            result = item
    assert result is not None and result.ok, result
    return result


async def edit_ms(root: Path, checked: bool, read_first: bool, n: int) -> float:
    """One edit's wall time, in ms."""
    path = root / f"big_{checked}_{read_first}_{n}.py"
    path.write_text(source())
    state = SessionState(Conversation())
    ctx = ToolContext(root=root, state=state)
    runner = CallRunner(default_registry(), ctx, ScriptedApprover(), Rules())
    if checked:
        runner.checks = EditChecks(root, CheckSettings())
    await call(runner, "read_file", path=path.name, end_line=5)
    if not read_first:  # the tree the read prepared is dropped: the edit parses whole
        runner.checks = EditChecks(root, CheckSettings()) if checked else None
    await asyncio.sleep(0.2)  # the read's preparation, in a worker thread, is done
    began = time.perf_counter()
    await call(
        runner,
        "edit_file",
        path=path.name,
        old_string=f"        self.items[key] = value * {n}\n",
        new_string=f"        self.items[key] = value * {n} + 1\n",
    )
    return (time.perf_counter() - began) * 1000


async def main_async(runs: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for read_first in (True, False):
            plain = [await edit_ms(root, False, read_first, n) for n in range(runs)]
            checked = [await edit_ms(root, True, read_first, n) for n in range(runs)]
            base, with_check = statistics.median(plain), statistics.median(checked)
            added = with_check - base
            verdict = "ok" if added <= TARGET_MS else "MISSED"
            how = "read first (as the model must)" if read_first else "not read first (cold)"
            print(f"edit of a {LINES:,}-line Python file, {how}, median of {runs}:")
            print(f"  without the check  {base:7.2f} ms")
            print(f"  with the check     {with_check:7.2f} ms   ({with_check / base:.2f}x)")
            print(f"  added              {added:7.2f} ms   target <= {TARGET_MS:g} ms: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    asyncio.run(main_async(parser.parse_args().runs))


if __name__ == "__main__":
    main()
