"""How fast the TUI is, on this machine.

Prints: the first frame at 120x40 next to a minimal Textual app drawing one Static in the
same terminal (the floor, in the same run); the time from process start to the first frame
and to a usable prompt (a keystroke echoed) for the real `zizou` in a pseudo-terminal; the
time to render a 100 KB streamed answer in the app (from Enter to the first frame showing the
answer's end) next to the headless renderer consuming the same stream (paced as a fast model,
and as one burst); and keystroke-to-echo latency in the real app while a long answer streams
from the loopback server. Targets: first frame <= 1.3x the minimal app, <= 0.5 s to a usable
prompt, <= 1.15x the headless time for a streamed answer and <= 2x for a burst, <= 50 ms per
keystroke.

    .venv/bin/python bench/tui.py [--runs 5] [--first-frame]
"""

from __future__ import annotations

import argparse
import asyncio
import compileall
import fcntl
import gc
import importlib
import io
import os
import pty
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer  # noqa: E402

_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-B]|\x1b.")


MINIMAL_APP = """
from textual.app import App
from textual.widgets import Static

class Minimal(App[None]):
    def compose(self):
        yield Static("Ask zizou")

Minimal().run()
"""


class PtyApp:
    """The real `zizou` (or `argv`) in a pseudo-terminal of 100x30, its output timestamped."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        env: dict[str, str],
        size: tuple[int, int] = (100, 30),
        argv: list[str] | None = None,
    ) -> None:
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            argv or [sys.executable, "-m", "zizou", *args],
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
        )
        os.close(slave)
        self.master = master
        self.chunks: list[tuple[float, bytes]] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            if not data:
                return
            with self.lock:
                self.chunks.append((time.perf_counter(), _ESCAPES.sub(b"", data)))

    def text_since(self, since: float) -> bytes:
        with self.lock:
            return b"".join(data for at, data in self.chunks if at >= since)

    def wait_for(self, needle: bytes, since: float, limit_s: float = 30) -> float:
        """The time `needle` first shows in the output after `since`."""
        deadline = time.perf_counter() + limit_s
        while time.perf_counter() < deadline:
            with self.lock:
                seen = b""
                for at, data in self.chunks:
                    if at >= since:
                        seen += data
                        if needle in seen:
                            return at
            time.sleep(0.0005)
        raise TimeoutError(f"never saw {needle!r}")

    def type(self, text: str) -> float:
        now = time.perf_counter()
        os.write(self.master, text.encode())
        return now

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.master)


def environment(home: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(OPENAI_API_KEY="sk-bench", TERM="xterm-256color", COLUMNS="100", LINES="30")
    env["ZIZOU_HOME"] = home or tempfile.mkdtemp(prefix="zizou-bench-home-")
    return env


def warm_home(project: Path) -> str:
    """A user folder as it is after a first start: zizou's cache holds the parsed stylesheets
    (written once the first frame is up, so the app is left open until the file is there)."""
    home = tempfile.mkdtemp(prefix="zizou-bench-home-")
    app = PtyApp([], project, environment(home), size=(120, 40))
    try:
        app.wait_for(b"Ask zizou", app.started)
        styles = Path(home) / "cache" / "styles"
        deadline = time.perf_counter() + 30
        while not (styles.is_dir() and any(styles.glob("*.pickle"))):
            if time.perf_counter() > deadline:
                raise TimeoutError("the parsed stylesheets were never kept")
            time.sleep(0.01)
    finally:
        app.close()
    return home


def startup(project: Path, base_url: str, runs: int) -> tuple[list[float], list[float]]:
    firsts, usables = [], []
    for _ in range(runs):
        app = PtyApp(["--api-base", base_url, "--no-debug-log"], project, environment())
        try:
            first = app.wait_for(b"Ask zizou", app.started)
            typed = app.type("qzx")
            usable = app.wait_for(b"qzx", typed)
            firsts.append(first - app.started)
            usables.append(usable - app.started)
        finally:
            app.close()
    return firsts, usables


def first_frames(project: Path, base_url: str, runs: int) -> None:
    """The issue's row: zizou's first frame at 120x40 beside a minimal Textual app drawing one
    Static in the same terminal, started in turn so all see the same machine; zizou as it
    starts every time after its first (its cache holds the parsed stylesheets). `zizou` alone
    starts without click; given flags, click reads them first."""
    minimal_argv = [sys.executable, "-c", MINIMAL_APP]
    flagged = ["--api-base", base_url, "--no-debug-log"]
    starts: tuple[tuple[str, list[str], list[str] | None], ...] = (
        ("minimal Textual app", [], minimal_argv),
        ("zizou", [], None),
        ("zizou --api-base URL --no-debug-log", flagged, None),
    )
    times: dict[str, list[float]] = {label: [] for label, _, _ in starts}
    home = warm_home(project)
    for _ in range(runs):
        for label, args, argv in starts:
            app = PtyApp(args, project, environment(home), size=(120, 40), argv=argv)
            try:
                times[label].append(app.wait_for(b"Ask zizou", app.started) - app.started)
            finally:
                app.close()
    medians = {label: statistics.median(values) for label, values in times.items()}
    floor = medians["minimal Textual app"]
    print(f"first frame 120x40, median of {runs}: minimal Textual app {floor * 1000:.1f} ms")
    for label, _, argv in starts:
        if argv is None:
            ratio = medians[label] / floor
            print(
                f"  {label:36} {medians[label] * 1000:8.1f} ms   ratio {ratio:.2f}x   "
                "target <= 1.3x"
            )


def keystroke_latency(
    project: Path, base_url: str, count: int = 30, gap_s: float = 0.05
) -> list[float]:
    """Keys typed `gap_s` apart while a long answer streams. The app holds streamed text back
    while the user types, so steady typing (0.05 s apart) measures that; isolated keys (0.4 s
    apart) measure a key that lands while the answer is being redrawn."""
    app = PtyApp(["--api-base", base_url, "--no-debug-log"], project, environment())
    try:
        app.wait_for(b"Ask zizou", app.started)
        app.type("stream please\r")
        app.wait_for(b"paragraph 3", app.started, limit_s=60)
        latencies, typed = [], ""
        for number in range(count):
            token = "abcdefghijklmnopqrstuvwxyz"[number % 26]
            typed += token
            at = app.type(token)
            shown = app.wait_for(typed[-12:].encode(), at)
            latencies.append(shown - at)
            time.sleep(gap_s)
        return latencies
    finally:
        app.close()


def print_latencies(label: str, latencies: list[float]) -> None:
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95) - 1]
    print(
        f"{label:<20} {statistics.median(latencies) * 1000:8.1f} ms   "
        f"median while streaming (p95 {p95 * 1000:.1f}, max {latencies[-1] * 1000:.1f})   "
        "target <= 50 ms"
    )


END = "end-of-the-answer"


def long_answer(size: int = 100_000) -> str:
    parts, total, number = [], 0, 0
    while total < size:
        para = (
            f"paragraph {number}: some **bold** words, `code`, and a list follows.\n\n"
            f"- item {number}a with text\n- item {number}b with more text\n\n"
        )
        parts.append(para)
        total += len(para)
        number += 1
    return "".join(parts)[: size - len(END) - 2] + f"\n\n{END}"


async def headless_time(reply: dict[str, object]) -> float:
    """The same turn through HeadlessRun, with the collector as `zizou -p` has it (zizou's
    thresholds, nothing frozen)."""
    from zizou.agent.approvers import ScriptedApprover
    from zizou.collector import collect_less_often, unfreeze
    from zizou.config.options import RunOptions
    from zizou.headless import HeadlessRun
    from zizou.providers.fake import ScriptedModel
    from zizou.session.assembly import build_session

    unfreeze()
    collect_less_often()  # as every command starts
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-"))
    options = RunOptions(root=project, debug_log=False)
    session = build_session(options, ScriptedModel([reply]), ScriptedApprover(), persist=False)
    run = HeadlessRun(session, "text", out=io.StringIO(), err=io.StringIO())
    started = time.perf_counter()
    await run.run("go")
    return time.perf_counter() - started


async def tui_time(reply: dict[str, object]) -> float:
    """From Enter to the first frame that shows the end of the answer (the app's display
    hook sees every frame it would write to the terminal). The app runs as `zizou` runs it:
    its collector tuned from the start, what start-up loaded frozen, and the model library
    loaded in the background before the user sends."""
    sys.path.insert(0, str(ROOT / "tests" / "ui"))
    from textual.screen import Screen
    from ui_harness import scripted_session

    from zizou.collector import collect_less_often, unfreeze
    from zizou.ui.app import ZizouApp
    from zizou.ui.launch import WARM_MODULES
    from zizou.ui.opening import Warmup

    # What the earlier runs froze is their garbage: a real process starts with none of it, and
    # every frozen object costs what walks the frozen generation.
    unfreeze()
    gc.collect()
    collect_less_often()
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-"))
    session, approver = scripted_session(project, [reply])
    warm = Warmup(lambda: [importlib.import_module(name) for name in WARM_MODULES[1:]])
    app = ZizouApp(session, approver, fade=False, warmup=warm)
    shown: list[float] = []
    seen = asyncio.Event()  # waited on, not polled: the bench adds no work to the app's loop
    display = app._display

    def watch(screen: Screen[object], renderable: object) -> None:
        display(screen, renderable)  # type: ignore[arg-type]
        render = getattr(renderable, "render_segments", None)
        if not shown and render is not None and END.encode() in render(app.console).encode():
            shown.append(time.perf_counter())
            seen.set()

    app._display = watch  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        opening = app.opening  # the user sends once the model library is loaded
        while opening.preload_worker is None or opening.preloading:  # noqa: ASYNC110
            await asyncio.sleep(0.01)
        await pilot.pause()
        app.composer.set_text("go")
        started = time.perf_counter()
        await pilot.press("enter")
        await seen.wait()
        return shown[0] - started


def render_compare(runs: int) -> None:
    """The streamed answer, and the burst: the whole answer at once (a model faster than the
    screen), where the app has no stream to keep up with and pays for a full-screen render
    beside copying text to a stream (at least a frame, 16 ms)."""
    text = long_answer()
    for label, reply, target in (
        (
            "streamed, 2,000 chunks 1 ms apart",
            {"text": text, "pieces": 2000, "chunk_delay_s": 0.001},
            "target <= 1.15x",
        ),
        ("one burst, 2,000 chunks", {"text": text, "pieces": 2000}, "target <= 2x"),
    ):
        tui = statistics.median(asyncio.run(tui_time(reply)) for _ in range(runs))
        headless = statistics.median(asyncio.run(headless_time(reply)) for _ in range(runs))
        print(f"100 KB answer, {label}, to its end on screen:")
        print(
            f"  tui {tui * 1000:8.1f} ms   headless {headless * 1000:8.1f} ms   "
            f"ratio {tui / headless:6.2f}x   {target}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--first-frame", action="store_true", help="only the first-frame row")
    parser.add_argument("--render", action="store_true", help="only the streamed and burst rows")
    parsed = parser.parse_args()
    runs = parsed.runs
    # zizou's bytecode as an installed copy has it after its first start, whatever
    # PYTHONDONTWRITEBYTECODE says here: a start that compiles its modules is not the one timed.
    compileall.compile_dir(ROOT / "zizou", quiet=1)
    if parsed.render:
        render_compare(runs)
        return
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-"))
    (project / "main.py").write_text("print('hello')\n")
    stream = {"text": long_answer(), "pieces": 3000, "chunk_delay_s": 0.01}
    with LoopbackServer([stream], repeat=True) as srv:
        first_frames(project, srv.base_url, runs)
        if parsed.first_frame:
            return
        firsts, usables = startup(project, srv.base_url, runs)
        print(
            f"first frame          {statistics.median(firsts) * 1000:8.1f} ms   "
            f"(median of {runs}; min {min(firsts) * 1000:.1f})"
        )
        print(
            f"usable prompt        {statistics.median(usables) * 1000:8.1f} ms   "
            f"(a keystroke echoed)   target <= 500 ms"
        )
        steady = keystroke_latency(project, srv.base_url)
        isolated = keystroke_latency(project, srv.base_url, count=20, gap_s=0.4)
    print_latencies("keystroke to echo", steady)
    print_latencies("  isolated keys", isolated)
    render_compare(max(1, runs // 2))


if __name__ == "__main__":
    main()
