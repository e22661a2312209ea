"""The size of the first request of a hello turn in a fixed two-file project, by part.

Runs the real `zizou -p hi` against the loopback server and reads the request body back: its
bytes, the system prompt by layer, and the tools offered with the size of each schema. The
issue's baseline (main on 2026-11-28) was 32,744 bytes: a 7.3k-char system prompt and 25.1k
of schemas for 21 tools; the target is 60% of it for the same tools available.

    .venv/bin/python bench/request_size.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from loopback import LoopbackServer  # noqa: E402

BASELINE_BYTES = 32_744


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        project = Path(scratch) / "project"
        project.mkdir()
        (project / "a.py").write_text("def a():\n    return 1\n")
        (project / "b.py").write_text("import a\n\nprint(a.a())\n")
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
        log = Path(scratch) / "requests.jsonl"
        with LoopbackServer([{"text": "hello"}], log_path=log) as server:
            argv = [sys.executable, "-m", "zizou", "-p", "hi", "--api-base", server.base_url]
            argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
            subprocess.run(argv, check=True, capture_output=True)
        body = json.loads(log.read_text().splitlines()[0])["body"]
    system = body["messages"][0]["content"]
    text = system if isinstance(system, str) else "".join(p.get("text", "") for p in system)
    tools = body.get("tools", [])
    size = len(json.dumps(body))
    print(f"first request   {size:>7,} bytes  ({size / BASELINE_BYTES:.0%} of {BASELINE_BYTES:,})")
    print(f"system prompt   {len(text):>7,} chars")
    parts = re.split(r"^# ([A-Z][A-Z ]+)$", text, flags=re.MULTILINE)
    for name, body_text in zip(parts[1::2], parts[2::2], strict=True):
        print(f"  {name:<20} {len(body_text):>7,}")
    print(f"tool schemas    {len(json.dumps(tools)):>7,} chars in {len(tools)} tools")
    for tool in sorted(tools, key=lambda t: -len(json.dumps(t))):
        print(f"  {tool['function']['name']:<20} {len(json.dumps(tool)):>7,}")


if __name__ == "__main__":
    main()
