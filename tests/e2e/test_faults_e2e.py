"""Every way a provider can fail, against the real `zizou -p` process and the loopback server:
how many requests went out, the waits (Retry-After honoured), the exit code and the message,
and that the session file holds the user's message exactly once.

config.toml keeps the waits and timeouts short so the file runs in well under a minute; each run
still pays litellm's import. `first_token_s` counts from the request, so it leaves room for
litellm to build its client and connect on a loaded machine; both timeouts grow with the tests'
other time limits (`waiting.scaled`), and the stalls that must outlast them with them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer
from waiting import scaled

from zizou.contracts.compaction import TOOL_PLACEHOLDER
from zizou.sessions import SessionStore

PROMPT = "fix the flaky test"
FIRST_TOKEN_S = scaled(4)
IDLE_S = scaled(0.5)
CONFIG = f"""\
[retry]
base_delay_s = 0.05

[timeouts]
connect_s = {scaled(15):g}
first_token_s = {FIRST_TOKEN_S:g}
idle_s = {IDLE_S:g}
"""
OVERFLOW = {
    "status": 400,
    "error": "This model's maximum context length is 1000 tokens. However, your messages "
    "resulted in 9000 tokens.",
}


@dataclass
class Run:
    result: CliResult
    requests: list[dict[str, Any]]  # the chat requests the server received
    project: Path

    @property
    def attempts(self) -> int:
        return len(self.requests)

    @property
    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.result.stdout.splitlines() if line.strip()]

    @property
    def retries(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "retrying"]

    def user_messages_in_session(self) -> list[str]:
        store = SessionStore(self.project)
        session_id = store.active_id()
        assert session_id is not None
        loaded = store.load(session_id)
        return [m["content"] for m in loaded.wire() if m["role"] == "user"]


def run(
    script: list[dict[str, Any]],
    project: Path,
    home: Path,
    *extra: str,
    output: str = "stream-json",
) -> Run:
    (home / "config.toml").write_text(CONFIG)
    with LoopbackServer(script) as srv:
        args = ["-p", PROMPT, "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", output, *extra], project, home)
        requests = srv.chat_requests
    run = Run(result, requests, project)
    assert run.user_messages_in_session() == [PROMPT]
    return run


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def test_429_with_retry_after_waits_as_asked_then_succeeds(project: Path, zizou_home: Path) -> None:
    script = [{"status": 429, "retry_after": 1, "error_type": "requests"}, {"text": "Fixed."}]
    run_ = run(script, project, zizou_home)
    assert run_.result.code == 0, run_.result.stderr
    assert run_.attempts == 2
    [retry] = run_.retries
    assert (retry["attempt"], retry["delay_s"]) == (2, 1.0)
    assert retry["reason"].startswith(
        "rate limited by openai (429), retrying in 1 s (attempt 2 of 5)"
    )
    result = run_.events[-1]
    assert result["result"] == "Fixed." and result["duration_ms"] >= 1000


def test_500_five_times_gives_up_after_five_attempts(project: Path, zizou_home: Path) -> None:
    run_ = run([{"status": 500, "error": "Oops."}] * 5, project, zizou_home, output="text")
    assert run_.result.code == 1 and run_.attempts == 5
    lines = run_.result.stderr.splitlines()
    notices = [line for line in lines if "retrying" in line]
    assert len(notices) == 4, run_.result.stderr
    for attempt, line in enumerate(notices, 2):
        found = re.fullmatch(
            rf"zizou: openai failed on its side \(500\), retrying (now|in ([\d.]+) s) "
            rf"\(attempt {attempt} of 5\)",
            line,
        )
        assert found, line
        assert float(found.group(2) or 0) <= 0.05 * 2 ** (attempt - 2), line
    assert lines[-1].startswith("zizou: gave up after 5 attempts: openai failed on its side (500)")
    assert run_.result.stdout == ""


def test_overloaded_as_529_or_as_500_is_retried(project: Path, zizou_home: Path) -> None:
    overloaded = {"error": "Overloaded", "error_type": "overloaded_error"}
    script = [{"status": 529, **overloaded}, {"status": 500, **overloaded}, {"text": "Fixed."}]
    run_ = run(script, project, zizou_home)
    assert run_.result.code == 0, run_.result.stderr
    assert run_.attempts == 3
    first, second = run_.retries
    assert first["reason"].startswith("openai is overloaded (529), retrying")
    assert second["reason"].startswith("openai is overloaded (500), retrying")
    assert 0 <= first["delay_s"] <= 0.05 and 0 <= second["delay_s"] <= 0.1


def test_a_rejected_key_is_not_retried_and_names_the_fix(project: Path, zizou_home: Path) -> None:
    run_ = run([{"status": 401}], project, zizou_home, output="text")
    assert run_.result.code == 1 and run_.attempts == 1
    assert run_.result.stderr.startswith(
        "zizou: the key for openai was rejected; run `zizou keys set openai` or set "
        "OPENAI_API_KEY to a valid key"
    )
    assert "retrying" not in run_.result.stderr and "sk-test-loopback" not in run_.result.stderr


def test_a_bad_request_is_not_retried(project: Path, zizou_home: Path) -> None:
    run_ = run([{"status": 400, "error": "Invalid value for 'tools'."}], project, zizou_home)
    assert run_.result.code == 1 and run_.attempts == 1 and run_.retries == []
    result = run_.events[-1]
    assert result["subtype"] == "error"
    assert result["result"] == "openai rejected the request (400): Invalid value for 'tools'."


def test_a_retry_after_beyond_a_minute_stops_and_says_when(project: Path, zizou_home: Path) -> None:
    run_ = run([{"status": 429, "retry_after": 120}], project, zizou_home, output="text")
    assert run_.result.code == 1 and run_.attempts == 1
    assert re.fullmatch(
        r"zizou: openai asked to wait 120 s \(429\); try again after \d\d:\d\d\n",
        run_.result.stderr,
    ), run_.result.stderr


def test_broken_streams_are_retried_and_their_tool_calls_never_run(
    project: Path, zizou_home: Path
) -> None:
    pwn = {"tool_calls": [call("write_file", path="pwned.txt", content="x")], "truncate": True}
    script = [
        pwn,  # ends without a finish reason
        {"text": "one two three", "stall_s": 10 * IDLE_S},  # stalls mid-reply, longer than idle_s
        {
            "text": "late",
            "stall_s": 2.5 * FIRST_TOKEN_S,
            "stall_after": 0,
        },  # no first token within first_token_s
        {"text": "Fixed."},
    ]
    run_ = run(script, project, zizou_home, "--yes")
    assert run_.result.code == 0, run_.result.stderr
    assert run_.attempts == 4 and not (project / "pwned.txt").exists()
    truncated, idle, first_token = (r["reason"] for r in run_.retries)
    assert truncated.startswith("the stream from openai ended before it finished, retrying")
    assert idle.startswith(
        f"the stream from openai stalled for {IDLE_S:g} s mid-reply (timeouts.idle_s)"
    )
    assert first_token.startswith(
        f"openai sent no first token within {FIRST_TOKEN_S:g} s (timeouts.first_token_s)"
    )
    assert [r["attempt"] for r in run_.retries] == [2, 3, 4]
    kinds = [e["type"] for e in run_.events]
    assert kinds.index("text_delta") < kinds.index("retrying", kinds.index("text_delta"))
    assert "tool_call_started" not in kinds and run_.events[-1]["result"] == "Fixed."


def test_an_overflow_drops_older_tool_output_once_and_retries(
    project: Path, zizou_home: Path
) -> None:
    (project / "big.txt").write_text("lorem ipsum\n" * 400)
    script = [
        {"tool_calls": [call("read_file", path="big.txt")]},
        {"tool_calls": [call("list_dir", path=".")]},
        OVERFLOW,
        {"text": "Fixed."},
    ]
    run_ = run(script, project, zizou_home)
    assert run_.result.code == 0, run_.result.stderr
    assert run_.attempts == 4
    [retry] = run_.retries
    assert retry["delay_s"] == 0 and "dropped older tool outputs and turns" in retry["reason"]
    sent, resent = (
        [m["content"] for m in r["messages"] if m["role"] == "tool"] for r in run_.requests[2:]
    )
    assert "lorem ipsum" in sent[0] and resent[0] == TOOL_PLACEHOLDER
    assert resent[1] == sent[1] and "big.txt" in resent[1]  # the latest step is intact
    assert "resent_messages" not in retry  # stream-json stays small
    # the debug log shows the history that was sent again, not only the one that overflowed
    log = (project / "zizou-debug.log").read_text()
    after = log[log.index("sent again with a shorter history") :]
    assert TOOL_PLACEHOLDER in after and "lorem ipsum" not in after


def test_a_second_overflow_stops_with_the_token_counts(project: Path, zizou_home: Path) -> None:
    (project / "big.txt").write_text("lorem ipsum\n" * 400)
    script = [
        {"tool_calls": [call("read_file", path="big.txt")]},
        {"tool_calls": [call("list_dir", path=".")]},
        OVERFLOW,
        OVERFLOW,
    ]
    run_ = run(script, project, zizou_home, output="text")
    assert run_.result.code == 1 and run_.attempts == 4
    assert re.search(
        r"still too long after dropping older tool outputs and turns: about [\d,]+ tokens, and "
        r"the context window of openai/test-model holds 1,000; start a new session",
        run_.result.stderr,
    ), run_.result.stderr
