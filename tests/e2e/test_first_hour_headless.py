"""What a new user met headless, against the real `zizou -p` process and the loopback server:
provider faults (Retry-After on a 504, headers held past the connect time-out, a model calling
tools that do not exist, a history shortened to fit that must stay short) and an error message
garbled by masking a one-letter key."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer
from waiting import scaled

from zizou.contracts.compaction import TOOL_PLACEHOLDER

TIMEOUTS = f"first_token_s = {scaled(10):g}\nidle_s = {scaled(2):g}\n"
CONFIG = f"[retry]\nbase_delay_s = 0.05\n\n[timeouts]\nconnect_s = {scaled(15):g}\n{TIMEOUTS}"
OVERFLOW = {
    "status": 400,
    "error": "This model's maximum context length is 1000 tokens. However, your messages "
    "resulted in 9000 tokens.",
}


def run(
    script: list[dict[str, Any]], project: Path, home: Path, *extra: str, config: str = CONFIG
) -> tuple[CliResult, list[dict[str, Any]]]:
    (home / "config.toml").write_text(config)
    with LoopbackServer(script) as srv:
        args = ["-p", "fix it", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, *extra], project, home)
        return result, srv.chat_requests


def events(result: CliResult) -> list[dict[str, Any]]:
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def test_a_504_with_retry_after_waits_as_asked(project: Path, zizou_home: Path) -> None:
    gateway = {"status": 504, "retry_after": 1, "error": "upstream request timed out"}
    result, requests = run(
        [gateway, {"text": "Fixed."}], project, zizou_home, "--output-format", "stream-json"
    )
    assert result.code == 0, result.stderr
    [retry] = [e for e in events(result) if e["type"] == "retrying"]
    assert retry["delay_s"] == 1.0 and len(requests) == 2
    assert retry["reason"].startswith("openai failed on its side (504), retrying in 1 s")


def test_headers_held_past_the_connect_timeout_are_tried_five_times(
    project: Path, zizou_home: Path
) -> None:
    connect_s = scaled(1)
    config = f"[retry]\nbase_delay_s = 0.05\n\n[timeouts]\nconnect_s = {connect_s:g}\n{TIMEOUTS}"
    held = [{"text": "late", "delay_s": 2 * connect_s}] * 5
    result, requests = run(held, project, zizou_home, config=config)
    assert result.code == 1, result.stderr
    gave_up = f"gave up after 5 attempts: openai did not start answering within {connect_s:g} s"
    assert gave_up in result.stderr
    # An attempt's clock also runs while litellm builds its client, which on a loaded machine
    # can take the whole second before the request is sent (even for every attempt): the server
    # may see fewer, never more. The five attempts are the message above.
    assert len(requests) <= 5


def test_calls_to_tools_that_do_not_exist_stop_after_three_in_a_row(
    project: Path, zizou_home: Path
) -> None:
    script = [call("frobnicate", n=1), call("frobnicate", n=2), call("fetch_url", n=3)] * 5
    result, requests = run(script, project, zizou_home, "--output-format", "json")
    assert result.code == 1 and len(requests) == 3, result.stderr
    outcome = result.json()
    assert outcome["subtype"] == "error"
    message = outcome["result"]
    assert "tools that do not exist 3 times in a row ('frobnicate', 'fetch_url')" in message
    assert "the tools are: " in message and "read_file" in message and "run_bash" in message


def test_a_history_shortened_to_fit_stays_short(project: Path, zizou_home: Path) -> None:
    (project / "big.txt").write_text("lorem ipsum\n" * 1500)
    script = [
        call("read_file", path="big.txt"),
        call("list_dir", path="."),
        OVERFLOW,
        call("glob", pattern="*.txt"),  # the shortened request is answered
        {"text": "Fixed."},
    ]
    result, requests = run(script, project, zizou_home)
    assert result.code == 0 and len(requests) == 5, result.stderr
    overflowed, resent, after = requests[2:]
    assert "lorem ipsum" in json.dumps(overflowed["messages"])
    for request in (resent, after):
        assert "lorem ipsum" not in json.dumps(request["messages"])
        assert TOOL_PLACEHOLDER in json.dumps(request["messages"])
    assert after["messages"][: len(resent["messages"])] == resent["messages"]
    log = (project / "zizou-debug.log").read_text()
    sizes = dict(re.findall(r"REQUEST step (\d+): ([\d,]+) chars", log))
    assert int(sizes["4"].replace(",", "")) < int(sizes["3"].replace(",", "")) / 1.3


def test_a_one_letter_key_does_not_garble_an_error(project: Path, zizou_home: Path) -> None:
    refused = "Cannot connect to host ssl:<ssl.SSLContext object at 0x7ffbe2f20a70> [exit]"
    result, _ = run([{"status": 400, "error": refused}], project, zizou_home, "--api-key", "x")
    assert result.code == 1
    assert "<ssl.SSLContext object at 0x7ffbe2f20a70> [exit]" in result.stderr, result.stderr
