"""The spending caps through the real `zizou -p` and litellm's HTTP path: a model litellm prices
(openai/gpt-4o) pointed at the loopback server gets its cost computed from the usage the server
reports, and the run stops before the call that would pass `--max-budget-usd`, with exit code 4
and a result whose subtype is `budget`. `--max-tokens` does the same for a model without a price.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

# Each reply reports 8,000 prompt tokens and 100 completion tokens: $0.021 at gpt-4o's prices
# ($2.50 and $10 per million), so three calls cost $0.063 and a cap of $0.05 allows two.
PROMPT, COMPLETION = 8_000, 100
CALL_COST = PROMPT * 2.5e-6 + COMPLETION * 1e-5
CAP = 0.05


def reading(name: str) -> dict[str, Any]:
    call = {"name": "read_file", "arguments": json.dumps({"path": name})}
    return {"tool_calls": [call], "prompt_tokens": PROMPT, "completion_tokens": COMPLETION}


def script() -> list[dict[str, Any]]:
    return [reading("a.txt"), reading("b.txt"), reading("c.txt"), {"text": "All read."}]


def run(project: Path, home: Path, server: LoopbackServer, model: str, *flags: str) -> Any:
    args = ["-p", "read the files", "--model", model, "--api-base", server.base_url, *flags]
    return run_cli(args, project, home)


def files(project: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (project / name).write_text(f"{name}\n")


def test_the_dollar_cap_stops_the_run_before_the_call_that_would_pass_it(
    project: Path, zizou_home: Path
) -> None:
    files(project)
    with LoopbackServer(script()) as server:
        cap = ["--max-budget-usd", str(CAP), "--output-format", "json"]
        result = run(project, zizou_home, server, "openai/gpt-4o", *cap)
        requests = server.chat_requests
    assert result.code == 4, result.stderr
    assert len(requests) == 2  # the third call would have passed the cap: never sent
    assert all(0 < r["max_tokens"] < 16_384 for r in requests)  # each reply fits the room left
    out = json.loads(result.stdout)
    assert (out["type"], out["subtype"], out["stop_reason"]) == ("result", "budget", "budget")
    assert "error" not in out
    assert out["cost_usd"] == round(2 * CALL_COST, 6) and out["cost_usd"] <= CAP
    message = out["result"]
    assert "spending cap of $0.0500" in message and "$0.0420 spent" in message
    assert "--max-budget-usd" in message
    assert [call["name"] for call in out["tool_calls"]] == ["read_file", "read_file"]


def test_a_stopped_run_says_why_on_stderr_and_warns_past_80_percent(
    project: Path, zizou_home: Path
) -> None:
    files(project)
    with LoopbackServer(script()) as server:
        flags = ["--max-budget-usd", str(CAP), "--output-format", "stream-json"]
        streamed = run(project, zizou_home, server, "openai/gpt-4o", *flags)
    assert streamed.code == 4, streamed.stderr
    events = [json.loads(line) for line in streamed.stdout.splitlines()]
    [warning] = [e for e in events if e["type"] == "budget_warning"]
    assert warning["message"] == "84% of the spending cap is used: $0.0420 of $0.0500"
    finished = [e for e in events if e["type"] == "turn_finished"]
    assert finished[0]["reason"] == "budget" and events[-1]["subtype"] == "budget"
    with LoopbackServer(script()) as server:
        text = run(project, zizou_home, server, "openai/gpt-4o", "--max-budget-usd", str(CAP))
    assert text.code == 4 and text.stdout == ""
    assert "zizou: 84% of the spending cap is used" in text.stderr
    assert "zizou: stopped before a model call that would pass the spending cap" in text.stderr


def test_the_token_cap_holds_for_a_model_without_a_price(project: Path, zizou_home: Path) -> None:
    files(project)
    with LoopbackServer(script()) as server:
        priced = run(project, zizou_home, server, "openai/test", "--max-budget-usd", "1")
        assert priced.code == 2 and server.chat_requests == []
        assert "does not know the price of openai/test" in priced.stderr
        assert "--max-tokens" in priced.stderr
        flags = ["--max-tokens", "20000", "--output-format", "json"]
        capped = run(project, zizou_home, server, "openai/test", *flags)
        requests = len(server.chat_requests)
    assert capped.code == 4, capped.stderr
    out = json.loads(capped.stdout)
    assert out["subtype"] == "budget" and "--max-tokens" in out["result"]
    assert requests == 2  # 8,100 tokens each: a third would pass 20,000
    spent = out["usage"]["input_tokens"] + out["usage"]["output_tokens"]
    assert spent == 2 * (PROMPT + COMPLETION) <= 20_000
