"""The first request of a hello turn, as the real `zizou -p` sends it: at most 60% of what it
was (32,744 bytes on 2026-11-28, for the same tools), and every argument of every tool offered
still there, in a schema without pydantic's noise."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

from zizou.tools import default_registry

BEFORE_BYTES = 32_744


def first_request(project: Path, home: Path) -> dict[str, Any]:
    (project / "a.py").write_text("def a():\n    return 1\n")
    (project / "b.py").write_text("import a\n\nprint(a.a())\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with LoopbackServer([{"text": "hello"}]) as server:
        args = ["-p", "hi", "--api-base", server.base_url, "--model", "openai/test-model"]
        result = run_cli([*args, "--no-debug-log"], project, home)
        assert result.code == 0, result.stderr
        return server.chat_requests[0]


def argument_paths(schema: Any, defs: dict[str, Any], prefix: str = "") -> set[str]:
    """Every argument a schema takes, nested ones as `outer.inner`, `$ref`s followed."""
    if not isinstance(schema, dict):
        return set()
    ref = schema.get("$ref")
    if isinstance(ref, str):
        return argument_paths(defs[ref.rsplit("/", 1)[-1]], defs, prefix)
    found: set[str] = set()
    for branch in [*schema.get("anyOf", []), schema.get("items")]:
        found |= argument_paths(branch, defs, prefix)
    for name, field in schema.get("properties", {}).items():
        found |= {prefix + name} | argument_paths(field, defs, f"{prefix}{name}.")
    return found


def test_the_first_request_is_at_most_60_percent_of_before_with_every_argument(
    project: Path, zizou_home: Path
) -> None:
    body = first_request(project, zizou_home)

    size = len(json.dumps(body))
    assert size <= BEFORE_BYTES * 0.6, f"{size:,} bytes"
    offered = {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]}
    builtin = [tool for tool in default_registry() if tool.name in offered]
    assert len(builtin) >= 12  # the file, search, command and state tools of a first step
    for tool in builtin:
        full = tool.Args.model_json_schema()
        sent = offered[tool.name]
        assert argument_paths(sent, {}) == argument_paths(full, full.get("$defs", {})), tool.name
        text = json.dumps(sent)
        assert '"title": "' not in text and '{"type": "null"}' not in text, tool.name
        assert "$ref" not in text and '"default": null' not in text, tool.name
