"""How soon the app calls the person back, on this machine.

The real `zizou` runs in a pseudo-terminal against the loopback server. Prints, per run, the
time from the moment the server answered with a command to approve to the moment the terminal
bell reached the terminal (the approval waits), and from the moment the server sent a turn's
last reply to the bell of a turn that ran past `[notify] after_s` (0 here). Target: within 1 s
for both.

    .venv/bin/python bench/attention.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from tui import ROOT, PtyApp, environment

sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer

TARGET_S = 1.0


def answered_at(server: LoopbackServer, count: int, limit_s: float = 30) -> float:
    """When the server had taken its `count`-th chat request (it answers at once)."""
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        if len(server.chat_requests) >= count:
            return time.perf_counter()
        time.sleep(0.0005)
    raise TimeoutError(f"the server never got request {count}")


def one_run(project: Path) -> tuple[float, float]:
    command = json.dumps({"command": "true"})
    script = [{"tool_calls": [{"name": "run_bash", "arguments": command}]}, {"text": "done"}]
    env = environment()
    Path(env["ZIZOU_HOME"], "config.toml").write_text("[notify]\nafter_s = 0\n")
    with LoopbackServer(script) as server:
        app = PtyApp(["--api-base", server.base_url, "--no-debug-log"], project, env)
        try:
            app.wait_for(b"Ask zizou", app.started)
            sent = app.type("run it\r")
            watcher: list[float] = []
            thread = threading.Thread(target=lambda: watcher.append(answered_at(server, 1)))
            thread.start()
            rung = app.wait_for(b"\x07", sent)
            thread.join()
            approval = rung - watcher[0]
            app.wait_for(b"Run this command?", sent)
            after = app.type("y")
            last = answered_at(server, 2)
            finished = app.wait_for(b"\x07", max(after, rung + 0.001))
            return approval, finished - last
        finally:
            app.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-attention-"))
    results = [one_run(project) for _ in range(runs)]
    for name, values in (
        ("approval waiting -> bell", [r[0] for r in results]),
        ("long turn ended -> bell ", [r[1] for r in results]),
    ):
        median, worst = statistics.median(values), max(values)
        verdict = "ok" if worst <= TARGET_S else "OVER"
        print(
            f"{name}: median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
            f"over {runs} runs (target <= {TARGET_S * 1000:.0f} ms: {verdict})"
        )


if __name__ == "__main__":
    main()
