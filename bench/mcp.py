"""Whether an MCP server that is slow to start holds anything up, on this machine.

Prints, for the real `zizou` with no MCP server and with one that takes 10 s to start (a shell
that sleeps 10 s, then runs the SDK-written test server; in the user's mcp.json: the sleep
uses no CPU, so what is measured is whether zizou waits), the time from process
start to: `zizou -p`'s first request reaching the loopback model; the app's first frame; the
app's first request for a message typed as soon as the prompt shows. And the time `zizou -p`
takes to exit once its answer is printed, with the slow server still starting (every server
process is ended on the way out).
Target: with the slow server, each time within 0.25 s of the time without it (the server's own
10 s never shows).

    .venv/bin/python bench/mcp.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from loopback import LoopbackServer  # noqa: E402
from tui import PtyApp  # noqa: E402

SLOW_S = 10
FAULT_SERVER = ROOT / "tests" / "mcp_fault_server.py"
TARGET_S = 0.25


def home(slow: bool) -> str:
    folder = Path(tempfile.mkdtemp(prefix="zizou-bench-home-"))
    if slow:
        later = f"sleep {SLOW_S}; exec {sys.executable} {FAULT_SERVER}"
        server = {"command": "sh", "args": ["-c", later]}
        (folder / "mcp.json").write_text(json.dumps({"mcpServers": {"slow": server}}))
    return str(folder)


def environment(slow: bool) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(OPENAI_API_KEY="sk-bench", TERM="xterm-256color", COLUMNS="100", LINES="30")
    env.update(NO_COLOR="1", ZIZOU_HOME=home(slow))
    return env


def first_request(srv: LoopbackServer, since: float, limit_s: float = 60) -> float:
    """When the loopback server has its first chat request (polled every millisecond)."""
    deadline = time.perf_counter() + limit_s
    while time.perf_counter() < deadline:
        if srv.chat_requests:
            return time.perf_counter() - since
        time.sleep(0.001)
    raise TimeoutError("no request reached the model")


def headless(project: Path, slow: bool) -> tuple[float, float]:
    """(to the first request, from the answer to the process's exit)."""
    with LoopbackServer([{"text": "answered"}]) as srv:
        argv = [sys.executable, "-m", "zizou", "-p", "hello", "--api-base", srv.base_url]
        started = time.perf_counter()
        proc = subprocess.Popen(
            argv, cwd=project, env=environment(slow), stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        request = first_request(srv, started)
        answer = proc.stdout.readline()
        answered = time.perf_counter()
        proc.wait(60)
        assert answer.strip() == "answered", answer
        return request, time.perf_counter() - answered


def tui(project: Path, slow: bool) -> tuple[float, float]:
    """(to the first frame, to the first request of a message typed then)."""
    with LoopbackServer([{"text": "answered"}]) as srv:
        app = PtyApp(["--api-base", srv.base_url, "--no-debug-log"], project, environment(slow))
        try:
            frame = app.wait_for(b"Ask zizou", app.started) - app.started
            app.type("hello\r")
            return frame, first_request(srv, app.started)
        finally:
            app.close()


def compare(label: str, runs: int, measure: Callable[[bool], tuple[float, ...]]) -> None:
    samples: dict[bool, list[tuple[float, ...]]] = {False: [], True: []}
    for _ in range(runs):
        for slow in (False, True):
            samples[slow].append(measure(slow))
    names = label.split("|")
    for index, name in enumerate(names):
        plain = statistics.median(s[index] for s in samples[False])
        slowed = statistics.median(s[index] for s in samples[True])
        verdict = "ok" if slowed - plain <= TARGET_S else "OVER"
        print(
            f"{name:<34} {plain * 1000:8.1f} ms   with a {SLOW_S} s server {slowed * 1000:8.1f} ms"
            f"   (+{(slowed - plain) * 1000:.0f} ms, target <= +{TARGET_S * 1000:.0f} ms: "
            f"{verdict})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-"))
    (project / "main.py").write_text("print('hello')\n")
    print(f"median of {runs} runs each, no MCP server vs one that takes {SLOW_S} s to start")
    compare(
        "zizou -p: first request|zizou -p: exit after the answer",
        runs,
        lambda slow: headless(project, slow),
    )
    compare("app: first frame|app: first request", runs, lambda slow: tui(project, slow))


if __name__ == "__main__":
    main()
