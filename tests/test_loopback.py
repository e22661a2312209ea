"""The loopback server speaks OpenAI's wire format, plays its script and records requests."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply, ScriptedToolCall


def post(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def events(raw: bytes) -> list[Any]:
    lines = [line for line in raw.decode().split("\n\n") if line]
    assert all(line.startswith("data: ") for line in lines)
    return [line[6:] if line == "data: [DONE]" else json.loads(line[6:]) for line in lines]


STREAM = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True}


def test_text_streams_as_sse_and_ends_with_usage_and_done() -> None:
    script = [{"text": "Hello world", "prompt_tokens": 3, "completion_tokens": 2}]
    with LoopbackServer(script) as srv:
        status, headers, raw = post(
            srv.base_url, {**STREAM, "stream_options": {"include_usage": True}}
        )
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    *chunks, done = events(raw)
    assert done == "[DONE]"
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == "Hello world" and len(chunks) >= 5
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["prompt_tokens"] == 3
    assert chunks[-1]["usage"]["completion_tokens"] == 2


def test_tool_calls_stream_like_openai() -> None:
    calls = [{"name": "read_file", "arguments": '{"path": "a.py"}'}, {"name": "glob", "id": "x"}]
    with LoopbackServer([{"tool_calls": calls}]) as srv:
        _, _, raw = post(srv.base_url, STREAM)
    chunks = events(raw)[:-1]
    assert "usage" not in chunks[-1]  # only when stream_options.include_usage is set
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
    deltas = [d for c in chunks for d in c["choices"][0]["delta"].get("tool_calls", [])]
    heads = [d for d in deltas if "id" in d]
    assert [(h["index"], h["id"], h["function"]["name"]) for h in heads] == [
        (0, "call_1", "read_file"),
        (1, "x", "glob"),
    ]
    first_args = "".join(d["function"]["arguments"] for d in deltas if d["index"] == 0)
    assert first_args == '{"path": "a.py"}'
    assert len([d for d in deltas if d["index"] == 0]) > 2  # in fragments


def test_a_non_streaming_request_gets_one_json_body() -> None:
    reply = Reply(text="hi", tool_calls=(ScriptedToolCall("glob", '{"pattern": "*"}'),))
    with LoopbackServer([reply]) as srv:
        status, _, raw = post(srv.base_url, {**STREAM, "stream": False})
    body = json.loads(raw)
    assert status == 200 and body["choices"][0]["finish_reason"] == "tool_calls"
    message = body["choices"][0]["message"]
    assert message["content"] == "hi" and message["tool_calls"][0]["function"]["name"] == "glob"
    assert body["usage"]["total_tokens"] > 0


def test_errors_carry_a_json_body_and_retry_after() -> None:
    with LoopbackServer([{"status": 429, "retry_after": 2, "error": "slow down"}]) as srv:
        status, headers, raw = post(srv.base_url, STREAM)
    assert status == 429 and headers["Retry-After"] == "2"
    assert json.loads(raw)["error"]["message"] == "slow down"


def test_a_truncated_stream_has_no_finish_reason_and_no_done() -> None:
    with LoopbackServer([{"text": "partial", "truncate": True}]) as srv:
        _, _, raw = post(srv.base_url, STREAM)
    chunks = events(raw)
    assert "[DONE]" not in chunks
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)


def test_delay_and_stall_hold_the_stream() -> None:
    script = [{"text": "abc", "delay_s": 0.2, "stall_s": 0.3, "chunk_delay_s": 0.05}]
    with LoopbackServer(script) as srv:
        start = time.monotonic()
        post(srv.base_url, STREAM)
    assert time.monotonic() - start >= 0.2 + 0.3 + 4 * 0.05


def test_an_exhausted_script_answers_500_and_every_request_is_recorded() -> None:
    with LoopbackServer([{"text": "one"}]) as srv:
        post(srv.base_url, STREAM)
        status, _, raw = post(srv.base_url, {**STREAM, "tools": [{"type": "function"}]})
        assert srv.remaining == 0
    assert status == 500 and "script exhausted" in raw.decode()
    assert [r["messages"] for r in srv.chat_requests] == [STREAM["messages"]] * 2
    assert srv.chat_requests[1]["tools"] == [{"type": "function"}]
    assert srv.requests[0].headers["authorization"] == "Bearer sk-test"


def test_repeat_cycles_the_script_and_models_are_listed() -> None:
    with LoopbackServer([{"text": "a"}, {"text": "b"}], repeat=True) as srv:
        bodies = [post(srv.base_url, {**STREAM, "stream": False})[2] for _ in range(3)]
        with urllib.request.urlopen(f"{srv.base_url}/models", timeout=10) as response:
            models = json.loads(response.read())
    texts = [json.loads(b)["choices"][0]["message"]["content"] for b in bodies]
    assert texts == ["a", "b", "a"] and models["data"][0]["id"] == "loopback"


def test_unknown_script_keys_are_an_error() -> None:
    with pytest.raises(ValueError, match="unknown reply keys"):
        LoopbackServer([{"txt": "typo"}])


def test_it_runs_standalone(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "standalone"}]))
    server = Path(__file__).with_name("loopback.py")
    args = [sys.executable, str(server), "--script", str(script), "--port", "0", "--repeat"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        srv = LoopbackServer()
        srv.port = int(base_url.rsplit(":", 1)[1].split("/")[0])
        for _ in range(2):
            _, _, raw = post(srv.base_url, {**STREAM, "stream": False})
            assert json.loads(raw)["choices"][0]["message"]["content"] == "standalone"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
