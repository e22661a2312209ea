"""Start-up costs of headless zizou, next to a bare litellm script making the same request.

Prints: the import time of the agent (`zizou.agent`, and proof it does not import litellm), the
time of `zizou --version`, and `zizou -p` against the loopback server beside a bare litellm
script that sends the very same request body (system prompt, messages, tools) with the same
streaming settings (median of N runs each, interleaved), with the ratio.
Target: zizou -p within 1.0x of the bare script (both skip the interpreter's teardown).

    .venv/bin/python bench/startup.py [--runs 7]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer  # noqa: E402

BARE = """
import asyncio, json, os, sys
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
import litellm
litellm.suppress_debug_info = True
body = json.load(open(sys.argv[2]))

async def main():
    stream = await litellm.acompletion(
        model="openai/bench", api_base=sys.argv[1], api_key="sk-bench", stream=True,
        messages=body["messages"], tools=body["tools"],
        stream_options={"include_usage": True}, num_retries=0, max_retries=0)
    parts = [c.choices[0].delta.content or "" async for c in stream if c.choices]
    print("".join(parts))

asyncio.run(main())
sys.stdout.flush()
os._exit(0)  # no interpreter teardown, as zizou -p ends
"""
# The same script with Python's collector run as zizou runs it (fewer collections, none while
# litellm is imported): not the floor, printed beside it to show what zizou's own work
# costs once the collector is the same on both sides.
BARE_PAUSED = BARE.replace(
    "import litellm\n",
    "import gc\ngc.set_threshold(10_000, 50, 100)\ngc.disable()\nimport litellm\ngc.enable()\n",
)


def wall(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, capture_output=True)
    return time.perf_counter() - start


def import_time() -> tuple[float, list[str]]:
    code = (
        "import sys,time;t=time.perf_counter();import zizou.agent.loop, zizou.agent.prompt;"
        "print(time.perf_counter()-t);"
        "print(','.join(m for m in sys.modules if m.split('.')[0] in ('litellm','textual')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    seconds, heavy = out.stdout.splitlines() + [""] * (2 - len(out.stdout.splitlines()))
    return float(seconds), [m for m in heavy.split(",") if m]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    env = {**os.environ, "OPENAI_API_KEY": "sk-bench", "NO_COLOR": "1"}
    env["ZIZOU_HOME"] = tempfile.mkdtemp(prefix="zizou-bench-home-")
    project = Path(tempfile.mkdtemp(prefix="zizou-bench-"))
    (project / "main.py").write_text("print('hello')\n")
    bare_script = project / "bare.py"
    bare_script.write_text(BARE)
    paused_script = project / "bare_paused.py"
    paused_script.write_text(BARE_PAUSED)

    seconds, heavy = import_time()
    heavy_text = ", ".join(heavy) or "none"
    print(f"import zizou.agent         {seconds * 1000:8.1f} ms   litellm/textual: {heavy_text}")
    script = Path(sys.executable).with_name("zizou")  # the installed command, as users run it
    version_cmd = (
        [str(script), "--version"]
        if script.exists()
        else [sys.executable, "-m", "zizou", "--version"]
    )
    floor_cmd = [sys.executable, "-c", "pass"]
    versions, floors = [], []
    for _ in range(runs):  # in turn, so both see the same machine
        floors.append(wall(floor_cmd, project, env))
        versions.append(wall(version_cmd, project, env))
    version, floor = statistics.median(versions), statistics.median(floors)
    print(
        f"zizou --version            {version * 1000:8.1f} ms   "
        f"python -c pass {floor * 1000:.1f} ms ({version / floor:.2f}x, median of {runs})"
    )

    with LoopbackServer([{"text": "Hello! How can I help?"}], repeat=True) as srv:
        zizou_cmd = [sys.executable, "-m", "zizou", "-p", "say hello", "--api-base", srv.base_url]
        wall(zizou_cmd, project, env)  # warms the page cache, and shows what zizou sends
        body = project / "request.json"
        body.write_text(json.dumps(srv.chat_requests[0]))
        bare_cmd = [sys.executable, str(bare_script), srv.base_url, str(body)]
        paused_cmd = [sys.executable, str(paused_script), srv.base_url, str(body)]
        wall(bare_cmd, project, env)
        zizou_times, bare_times, paused_times = [], [], []
        for _ in range(runs):
            bare_times.append(wall(bare_cmd, project, env))
            zizou_times.append(wall(zizou_cmd, project, env))
            paused_times.append(wall(paused_cmd, project, env))
    z, b = statistics.median(zizou_times), statistics.median(bare_times)
    p = statistics.median(paused_times)
    print(f"zizou -p (loopback)        {z * 1000:8.1f} ms   (median of {runs})")
    print(f"bare litellm script        {b * 1000:8.1f} ms   (median of {runs})")
    print(f"ratio zizou / bare         {z / b:8.2f}x     target <= 1.0x")
    print(f"bare script, zizou's collector settings {p * 1000:8.1f} ms   zizou / it {z / p:.2f}x")


if __name__ == "__main__":
    main()
