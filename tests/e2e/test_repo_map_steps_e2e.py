"""The real `zizou -p` against the loopback server: the repo_map tool, called between the
agent's steps, maps what the steps before it changed (a file the agent wrote, the files a command
created and deleted) while the map is kept in memory between calls. (The system prompt's map is
ranked once per turn, by design: prompt.py.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

NAMES = ["fresh_helper", "made_by_command", "legacy_entry"]


def call(name: str, **arguments: object) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def tool_results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["messages"] if m["role"] == "tool"]


def test_each_steps_map_shows_the_files_the_step_before_changed(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text("def main():\n    return 0\n")
    (project / "legacy.py").write_text("def legacy_entry():\n    return 1\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    command = "printf 'def made_by_command():\\n    return 2\\n' > made.py && rm legacy.py"
    script = [
        call("repo_map", identifiers=NAMES),
        call("write_file", path="lib/fresh.py", content="def fresh_helper():\n    return 3\n"),
        call("repo_map", identifiers=NAMES),
        call("run_bash", command=command),
        call("repo_map", identifiers=NAMES),
        {"text": "done"},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "tidy up", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--yes"], project, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    results = tool_results(requests[-1])
    first, second, third = results[0], results[2], results[4]
    assert "def legacy_entry():" in first and "def fresh_helper():" not in first
    assert "def fresh_helper():" in second and "def made_by_command():" not in second
    assert "def made_by_command():" in third and "def fresh_helper():" in third
    assert "def legacy_entry():" not in third and "legacy.py" not in third
