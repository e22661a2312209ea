"""Model ids through the real `zizou -p` and litellm's HTTP path. litellm routes any id of a
provider it knows (`openai/gpt-4o-typo` goes to OpenAI), so whether the model exists is the
provider's answer: "no such model" is a usage error (exit code 2) that names the nearest id,
is not retried, and leaves no session behind. An `--api-base` server takes any id."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

NO_SUCH_MODEL = {
    "status": 404,
    "error": "The model `gpt-4o-typo` does not exist or you do not have access to it.",
    "error_type": "invalid_request_error",
}


def sessions(project: Path) -> list[Path]:
    return sorted((project / ".zizou" / "sessions").glob("*.jsonl"))


def test_a_model_the_provider_does_not_have_exits_2_and_leaves_no_session(
    project: Path, zizou_home: Path
) -> None:
    """No `--api-base`: litellm sends it to OpenAI's address, here the loopback server's."""
    with LoopbackServer([NO_SUCH_MODEL, {"text": "never sent"}]) as srv:
        args = ["-p", "hello", "--model", "openai/gpt-4o-typo", "--output-format", "json"]
        result = run_cli(args, project, zizou_home, OPENAI_BASE_URL=srv.base_url)
        requests = srv.chat_requests
    assert result.code == 2, result.stderr
    assert len(requests) == 1  # not retried
    out = result.json()
    assert out["error"]["kind"] == "unknown_model" and out["session_id"] is None
    message = out["error"]["message"]
    assert message.startswith("openai has no model openai/gpt-4o-typo: did you mean openai/gpt-4o?")
    assert "`zizou models openai`" in message
    assert sessions(project) == []

    with LoopbackServer([NO_SUCH_MODEL]) as srv:
        args = ["-p", "hello", "--model", "openai/gpt-4o-typo"]
        text = run_cli(args, project, zizou_home, OPENAI_BASE_URL=srv.base_url)
    assert text.code == 2 and "zizou: openai has no model openai/gpt-4o-typo" in text.stderr
    assert sessions(project) == []


def test_an_api_base_server_takes_any_id_and_its_no_such_model_is_exit_2(
    project: Path, zizou_home: Path
) -> None:
    with LoopbackServer([{"text": "served"}]) as srv:
        args = ["-p", "hello", "--model", "openai/gpt-4o-typo", "--api-base", srv.base_url]
        served = run_cli(args, project, zizou_home)
    assert (served.code, served.stdout.strip()) == (0, "served"), served.stderr
    assert "did you mean" not in served.stderr
    assert len(sessions(project)) == 1

    with LoopbackServer([NO_SUCH_MODEL]) as srv:
        args = ["-p", "hello", "--model", "openai/my-model", "--api-base", srv.base_url]
        refused = run_cli([*args, "--output-format", "stream-json"], project, zizou_home)
    assert refused.code == 2, refused.stderr
    last = json.loads(refused.stdout.splitlines()[-1])
    assert last["error"]["kind"] == "unknown_model"
    assert f"check the id against the models {srv.base_url} serves" in last["error"]["message"]
    assert len(sessions(project)) == 1  # the first run's, kept
