"""The real `zizou -p` process against the loopback server: delete_file is refused headless
until `--allow delete_file` approves it, and then the file's bytes are kept under .zizou/trash/.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

CONTENT = "def legacy():\n    return 1\n"


def delete_then_answer(path: str) -> list[dict[str, Any]]:
    call = {"name": "delete_file", "arguments": json.dumps({"path": path})}
    return [{"tool_calls": [call]}, {"text": "done"}]


def run(project: Path, home: Path, *extra: str) -> tuple[CliResult, list[str]]:
    """One headless turn that deletes legacy.py; the tool results the model read."""
    with LoopbackServer(delete_then_answer("legacy.py")) as srv:
        args = ["-p", "delete legacy.py", "--model", "openai/test-model"]
        args += ["--api-base", srv.base_url]
        result = run_cli([*args, *extra], project, home)
        requests = srv.chat_requests
    tools = [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]
    return result, tools


def test_a_delete_is_refused_headless_until_allowed(project: Path, zizou_home: Path) -> None:
    (project / "legacy.py").write_text(CONTENT)

    result, tools = run(project, zizou_home)
    assert result.code == 0, result.stderr
    assert (project / "legacy.py").read_text() == CONTENT
    assert "delete_file was not run" in result.stderr
    assert "--allow delete_file" in result.stderr and "--allow delete_file" in tools[0]
    assert not (project / ".zizou" / "trash").exists()

    result, tools = run(project, zizou_home, "--allow", "delete_file")
    assert result.code == 0, result.stderr
    assert not (project / "legacy.py").exists()
    [kept] = (project / ".zizou" / "trash").glob("*/legacy.py")
    assert kept.read_text() == CONTENT
    assert tools[0].startswith("Deleted legacy.py")
    assert str(kept.relative_to(project)) in tools[0]
