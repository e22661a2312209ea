"""The model's reasoning through the real `zizou -p` process and litellm's HTTP path: plain text
output leaves it out, stream-json carries it as `reasoning_delta` events in the order it
streamed, the debug log records it as REASONING-DELTA, and the model is never sent it back."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

FIRST_THOUGHT = "I should list the files before I answer."
SECOND_THOUGHT = "One file is there, so the answer is short."
SCRIPT = [
    {"reasoning": FIRST_THOUGHT, "tool_calls": [{"name": "list_dir", "arguments": "{}"}]},
    {"reasoning": SECOND_THOUGHT, "text": "There is one file."},
]


def zizou(project: Path, home: Path, *extra: str) -> tuple[str, list[dict[str, object]]]:
    with LoopbackServer(SCRIPT) as srv:
        args = ["-p", "what is here?", "--api-base", srv.base_url, *extra]
        result = run_cli(args, project, home)
        sent = srv.chat_requests
    assert result.code == 0, result.stderr
    assert FIRST_THOUGHT not in result.stderr
    return result.stdout, sent


def test_text_output_leaves_the_reasoning_out_and_the_model_never_reads_it(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("hello\n")
    out, sent = zizou(project, zizou_home)
    assert out == "There is one file.\n"
    assert len(sent) == 2 and FIRST_THOUGHT not in json.dumps(sent[1])


def test_stream_json_carries_the_reasoning_as_its_own_events(
    project: Path, zizou_home: Path
) -> None:
    out, _ = zizou(project, zizou_home, "--output-format", "stream-json")
    events = [json.loads(line) for line in out.splitlines()]
    types = [e["type"] for e in events]
    thoughts = [e["text"] for e in events if e["type"] == "reasoning_delta"]
    assert "".join(thoughts) == FIRST_THOUGHT + SECOND_THOUGHT
    first_text = types.index("text_delta")
    assert types.index("reasoning_delta") < types.index("tool_call_started") < first_text
    assert types[first_text - 1] == "reasoning_delta"  # the second step's, just before its text
    assert events[-1]["type"] == "result" and events[-1]["result"] == "There is one file."


def test_the_debug_log_records_the_reasoning_apart_from_the_text(
    project: Path, zizou_home: Path
) -> None:
    zizou(project, zizou_home)
    log = (project / "zizou-debug.log").read_text(encoding="utf-8")
    records = re.findall(r"^\S+ \S+ (REASONING-DELTA|TEXT-DELTA|TOOL-CALL)\b", log, re.MULTILINE)
    assert records == ["REASONING-DELTA", "TOOL-CALL", "REASONING-DELTA", "TEXT-DELTA"]
    assert f"    {FIRST_THOUGHT}" in log and f"    {SECOND_THOUGHT}" in log
