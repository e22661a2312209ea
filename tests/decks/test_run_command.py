"""`zizou run` as a function (the CLI's subprocess runs are in tests/e2e/test_decks_e2e.py):
what it prints, and what a headless turn reports of its decks."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from zizou.commands.run import run_deck
from zizou.config.options import RunOptions
from zizou.headless import HeadlessRun
from zizou.providers.fake import ScriptedModel
from zizou.session.unattended import open_unattended

FRONT = {"description": "Echoes.", "input": {"type": "string"}, "output": {"type": "string"}}
ECHO = f"---\n{json.dumps({**FRONT, 'tools': []})}\n---\nEcho.\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZIZOU_HOME", str(tmp_path / "home"))
    (tmp_path / ".zizou" / "decks").mkdir(parents=True)
    (tmp_path / ".zizou" / "decks" / "echo.deck.md").write_text(ECHO)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_output_reaches_the_terminal_without_escape_sequences(project: Path) -> None:
    model = ScriptedModel([{"text": "done\x1b]52;c;aGk=\x07\x1b[2J"}])
    out = io.StringIO()
    options = RunOptions(root=project, debug_log=False)
    assert run_deck(options, "echo", "hi", out=out, model=model) == 0
    assert out.getvalue() == "done\n"


async def test_a_headless_results_usage_counts_its_decks(project: Path) -> None:
    model = ScriptedModel(
        [
            {"tool_calls": [{"name": "echo", "arguments": {"input": "x"}}], "prompt_tokens": 10},
            {"text": "echoed", "prompt_tokens": 1000, "completion_tokens": 7},
            {"text": "all done", "prompt_tokens": 20},
        ]
    )
    options = RunOptions(root=project, debug_log=False, output_format="json")
    out = io.StringIO()
    runtime = open_unattended(options, print, model, persist=False)
    await HeadlessRun(runtime, "json", out=out).run("go")
    result = json.loads(out.getvalue().splitlines()[-1])
    assert result["result"] == "all done"
    assert result["usage"]["input_tokens"] == 1030


def test_a_deck_run_stopped_by_the_spending_cap_exits_4(project: Path) -> None:
    model = ScriptedModel([{"text": "never sent"}])
    out = io.StringIO()
    options = RunOptions(root=project, debug_log=False, output_format="json", max_tokens=1_000)
    long = "a long input " * 400  # ~1,300 tokens: the cap leaves no room for the request
    assert run_deck(options, "echo", long, out=out, model=model) == 4
    result = json.loads(out.getvalue())
    assert result["subtype"] == "budget" and result["error"]["code"] == "budget"
    assert "--max-tokens" in result["error"]["message"] and model.requests == []
