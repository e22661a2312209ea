"""The limits of a `zizou -p` run through the real process and litellm's HTTP path: the step
cap's message names the flag and how to go on, and a run stopped by a cap counts the model
calls it made."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def test_the_step_cap_names_the_flag_and_how_to_continue(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"tool_calls": [call("list_dir", path=".")]}]) as srv:
        args = ["-p", "look around", "--api-base", srv.base_url, "--max-steps", "1"]
        text = run_cli(args, project, zizou_home)
    assert text.code == 3, text.stderr
    message = text.stderr.strip().splitlines()[-1]
    assert message.startswith("zizou: stopped after 1 step (the step cap, --max-steps 1);")
    assert '`zizou -c -p "continue"`' in message and "--max-steps N" in message
    assert "raise max_steps" not in message

    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("glob", pattern="*")]},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "look", "--api-base", srv.base_url, "--max-steps", "2"]
        result = run_cli([*args, "--output-format", "json"], project, zizou_home)
    out = result.json()
    assert (result.code, out["steps"]) == (3, 2)
    assert out["result"].startswith("stopped after 2 steps (the step cap, --max-steps 2);")


def test_a_token_cap_that_refuses_the_second_call_reports_one_step(
    project: Path, zizou_home: Path
) -> None:
    """The first reply reports 8,100 tokens: a second call would pass a cap of 10,000."""
    reading = {"tool_calls": [call("list_dir", path=".")], "prompt_tokens": 8_000}
    with LoopbackServer([reading, {"text": "never sent"}]) as srv:
        args = ["-p", "look", "--model", "openai/test", "--api-base", srv.base_url]
        result = run_cli(
            [*args, "--max-tokens", "10000", "--output-format", "json"], project, zizou_home
        )
        requests = srv.chat_requests
    assert result.code == 4, result.stderr
    out = result.json()
    assert len(requests) == 1
    assert (out["subtype"], out["steps"]) == ("budget", 1)


def test_first_token_s_gives_up_on_a_server_that_never_answers(
    project: Path, zizou_home: Path
) -> None:
    """The server takes the request and says nothing, not even its headers: the run gives up
    after `first_token_s`, not after the longer `connect_s`."""
    settings = "[timeouts]\nconnect_s = 60\nfirst_token_s = 1\n[retry]\nmax_attempts = 1\n"
    (zizou_home / "config.toml").write_text(settings)
    with LoopbackServer([{"text": "too late", "delay_s": 120}]) as srv:
        args = ["-p", "hello", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home)
    assert result.code == 1, result.stderr
    out = result.json()
    said = "gave up after 1 attempt: openai sent no first token within 1 s"
    assert out["result"].startswith(said)
    assert "(timeouts.first_token_s)" in out["result"]
    assert out["duration_ms"] < 30_000
