"""How `zizou -p` fails, through the real process: every exit of a json or stream-json run ends
with one result object on stdout, usage and configuration errors included; a model id litellm
cannot route is a usage error before any request, and leaves no session for `-c`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, run_cli
from loopback import LoopbackServer

RESULT_FIELDS = {
    "type",
    "subtype",
    "stop_reason",
    "session_id",
    "result",
    "steps",
    "usage",
    "cost_usd",
    "duration_ms",
    "tool_calls",
    "workspace",
    "error",
}


def only_result(result: CliResult) -> dict[str, Any]:
    """The one line a failed run printed on stdout, checked to be an error result."""
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    out: dict[str, Any] = json.loads(lines[0])
    assert set(out) == RESULT_FIELDS
    assert out["type"] == "result" and out["subtype"] == "error" and out["session_id"] is None
    assert out["result"] == out["error"]["message"]
    return out


def no_bwrap_path(tmp_path: Path) -> str:
    bin_dir = tmp_path / "bin-no-bwrap"
    bin_dir.mkdir()
    for program in ("bash", "git", "python3", "env"):
        found = shutil.which(program)
        if found:
            (bin_dir / program).symlink_to(found)
    return str(bin_dir)


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_a_missing_key_prints_one_json_result(
    project: Path, zizou_home: Path, output_format: str
) -> None:
    args = ["-p", "hi", "--model", "openai/gpt-4o", "--output-format", output_format]
    result = run_cli(args, project, zizou_home, OPENAI_API_KEY="")
    assert result.code == 2
    out = only_result(result)
    assert out["error"]["kind"] == "missing_key"
    assert out["error"]["message"].startswith("No key for openai: run `zizou keys set openai")
    assert out["steps"] == 0 and out["tool_calls"] == [] and out["cost_usd"] == 0.0
    assert "zizou: No key for openai" in result.stderr  # the person still reads it


@pytest.mark.parametrize(
    ("extra", "config", "says"),
    [
        (["--bogus"], None, "No such option '--bogus'"),
        (["--max-steps", "0"], None, "'--max-steps'"),
        (["--allow", "run_bash:git", "--sandbox", "off"], None, "--allow 'run_bash:git'"),
        ([], "max_steps = 'many'\n", "has invalid settings"),
        ([], "model = \n", "cannot read"),
        (["-c"], None, "there is no session to continue in this project"),
    ],
    ids=["unknown-option", "bad-value", "refused-rule", "bad-setting", "broken-toml", "no-session"],
)
def test_usage_and_configuration_errors_print_one_json_result(
    project: Path, zizou_home: Path, extra: list[str], config: str | None, says: str
) -> None:
    if config is not None:
        (zizou_home / "config.toml").write_text(config)
    args = ["-p", "hi", "--model", "openai/test-model", "--output-format", "json", *extra]
    result = run_cli(args, project, zizou_home)
    assert result.code == 2, result.stderr
    out = only_result(result)
    assert out["error"]["kind"] == "usage" and says in out["error"]["message"]
    assert says in result.stderr


def test_a_required_sandbox_that_is_missing_prints_one_json_result(
    project: Path, zizou_home: Path, tmp_path: Path
) -> None:
    args = ["-p", "hi", "--sandbox", "required", "--output-format", "stream-json"]
    result = run_cli(args, project, zizou_home, PATH=no_bwrap_path(tmp_path))
    assert result.code == 2
    out = only_result(result)
    assert out["error"]["kind"] == "usage" and "sandbox is required" in out["result"]


def test_a_provider_failure_names_its_kind(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"status": 401}]) as srv:
        args = ["-p", "hi", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli([*args, "--output-format", "stream-json"], project, zizou_home)
    assert result.code == 1
    last = json.loads(result.stdout.splitlines()[-1])
    assert last["type"] == "result" and last["subtype"] == "error"
    assert last["session_id"] and last["error"]["kind"] == "provider"
    assert "the key for openai was rejected" in last["error"]["message"]


def test_a_misspelt_model_is_a_usage_error_and_leaves_no_session(
    project: Path, zizou_home: Path
) -> None:
    result = run_cli(["-p", "hi", "--model", "gpt-4o-typo"], project, zizou_home)
    assert result.code == 2 and result.stdout == ""
    said = "zizou: unknown model gpt-4o-typo: did you mean gpt-4o? see `zizou models`"
    assert said in result.stderr and "rejected" not in result.stderr
    assert list(project.glob(".zizou/sessions/*.jsonl")) == []
    with LoopbackServer([{"text": "fresh"}]) as srv:
        args = ["-p", "again", "-c", "--model", "openai/test-model", "--api-base", srv.base_url]
        resumed = run_cli(args, project, zizou_home)
        assert srv.chat_requests == []
    assert resumed.code == 2 and "there is no session to continue" in resumed.stderr


def test_an_unknown_provider_is_named_with_the_known_ones(project: Path, zizou_home: Path) -> None:
    args = ["-p", "hi", "--model", "nosuchprovider/xyz", "--output-format", "json"]
    result = run_cli(args, project, zizou_home)
    assert result.code == 2
    out = only_result(result)
    assert out["error"]["kind"] == "unknown_provider"
    message = out["error"]["message"]
    assert message.startswith("unknown provider nosuchprovider in nosuchprovider/xyz")
    assert "openai, anthropic, gemini, groq, openrouter, ollama" in message
    assert "No key" not in result.stderr


def test_a_known_providers_unlisted_model_goes_on_to_the_key_check(
    project: Path, zizou_home: Path
) -> None:
    args = ["-p", "hi", "--model", "deepseek/a-model-newer-than-the-map", "--output-format", "json"]
    result = run_cli(args, project, zizou_home)
    assert result.code == 2
    out = only_result(result)
    assert out["error"]["kind"] == "missing_key" and "No key for deepseek" in out["result"]


def test_zizou_models_lists_what_the_errors_point_to(project: Path, zizou_home: Path) -> None:
    listing = run_cli(["models"], project, zizou_home)
    assert listing.code == 0, listing.stderr
    assert "openai (OpenAI; default openai/gpt-4o)" in listing.stdout
    assert "anthropic/claude-sonnet-4-5 " in listing.stdout
    assert "Other providers litellm reaches" in listing.stdout and "deepseek" in listing.stdout
    one = run_cli(["models", "deepseek"], project, zizou_home)
    assert one.code == 0 and "deepseek/deepseek-chat" in one.stdout
    unknown = run_cli(["models", "nosuchprovider"], project, zizou_home)
    assert unknown.code == 2 and "unknown provider nosuchprovider" in unknown.stderr


def test_sessions_list_leaves_out_an_empty_session(project: Path, zizou_home: Path) -> None:
    sessions = project / ".zizou" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "20260102-empty.jsonl").write_text(
        '{"kind":"meta","v":1,"id":"20260102-empty","created":"2026-01-02T00:00:00+00:00"}\n'
    )
    listing = run_cli(["sessions", "list"], project, zizou_home)
    assert listing.code == 0 and "20260102-empty" not in listing.stdout
    assert "no sessions in this project yet" in listing.stdout
