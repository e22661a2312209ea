"""The real `zizou -p` against the loopback server, with no `--allow` at all: a command that
only reads the project (`ls -la`, `wc -l *.py`, `cat app.py | head`) runs without asking, in the
sandbox or not, while one that reads through a link out of the project, or names `.env`, is
still asked about (and so denied headless)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli
from loopback import LoopbackServer

SECRET = "outside-credential-5e1b"


def bash(command: str) -> dict[str, Any]:
    return {"name": "run_bash", "arguments": json.dumps({"command": command})}


@pytest.mark.parametrize("sandbox", ["off", "auto"])
def test_read_only_commands_run_without_asking_and_reads_out_still_ask(
    tmp_path: Path, project: Path, zizou_home: Path, sandbox: str
) -> None:
    (project / "app.py").write_text("def main():\n    return 0\n")
    (project / "util.py").write_text("X = 1\n")
    (project / ".env").write_text("TOKEN=x\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text(SECRET + "\n")
    (project / "docs").symlink_to(outside, target_is_directory=True)
    calls = [
        bash("ls -la"),
        bash("wc -l *.py"),
        bash("cat app.py | head -n 1"),
        bash("cat docs/credentials"),
        bash("cat .env"),
    ]
    with LoopbackServer([{"tool_calls": calls}, {"text": "done"}]) as srv:
        args = ["-p", "look", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli([*args, "--sandbox", sandbox], project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert [c["ok"] for c in out["tool_calls"]] == [True, True, True, False, False]
    tools = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert "app.py" in tools[0] and "util.py" in tools[0]
    assert "3 total" in tools[1]
    assert "def main():" in tools[2]
    assert SECRET not in json.dumps(requests)
    log = (project / "zizou-debug.log").read_text(encoding="utf-8")
    assert log.count("run_bash allowed by read-only") == 3
