"""The real `zizou -p` process against the loopback server's Anthropic endpoint: the stable
prefix of the system prompt is sent as one cacheable block, and the prompt cache counts the
provider reports reach the JSON result and the debug log."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

MODEL = "anthropic/claude-sonnet-4-5"


def test_the_json_result_adds_up_the_cache_tokens(project: Path, zizou_home: Path) -> None:
    (project / "notes.txt").write_text("hello\n")
    read = {"name": "read_file", "arguments": json.dumps({"path": "notes.txt"})}
    script = [
        {"tool_calls": [read], "prompt_tokens": 2000, "cache_write_tokens": 1500},
        {"text": "It says hello.", "prompt_tokens": 2100, "cache_read_tokens": 1500},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "what is in notes.txt?", "--model", MODEL, "--api-base", srv.root_url]
        result = run_cli(
            [*args, "--output-format", "json"], project, zizou_home, ANTHROPIC_API_KEY="sk-test"
        )
        requests = list(srv.requests)

    assert result.code == 0, result.stderr
    out = result.json()
    assert out["subtype"] == "success" and out["result"] == "It says hello."
    assert out["usage"]["input_tokens"] == 4100  # the cached tokens are counted in it too
    assert out["usage"]["cache_read_tokens"] == 1500
    assert out["usage"]["cache_write_tokens"] == 1500
    assert [r.path for r in requests] == ["/v1/messages"] * 2
    assert requests[0].headers["x-api-key"] == "sk-test"
    # The stable layers go as one cacheable block, the same at both steps; the rest after it.
    stable, volatile = ([], [])
    for request in requests:
        first, second = request.body["system"]
        assert first["cache_control"] == {"type": "ephemeral"} and "cache_control" not in second
        stable.append(first["text"])
        volatile.append(second["text"])
    assert stable[0] == stable[1] and stable[0].startswith("# BASE INSTRUCTIONS")
    assert "# SESSION CONTEXT" in stable[0] and "# LIVE CONTEXT" not in stable[0]
    assert all(text.startswith("# TASK STATE") for text in volatile)
    assert all("# LIVE CONTEXT" in text for text in volatile)

    log = (project / "zizou-debug.log").read_text(encoding="utf-8")
    assert "(cache: 0 read, 1,500 written)" in log and "(cache: 1,500 read, 0 written)" in log
    assert "  cache read:   1,500\n  cache write:  1,500\n" in log
