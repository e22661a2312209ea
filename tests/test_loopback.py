"""The loopback server speaks OpenAI's wire format, plays its script and records requests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply, ScriptedToolCall
from waiting import scaled


def post(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
    )
    try:
        with urllib.request.urlopen(request, timeout=scaled(10)) as response:
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
        with urllib.request.urlopen(f"{srv.base_url}/models", timeout=scaled(10)) as response:
            models = json.loads(response.read())
    texts = [json.loads(b)["choices"][0]["message"]["content"] for b in bodies]
    assert texts == ["a", "b", "a"] and models["data"][0]["id"] == "loopback"


def test_unknown_script_keys_are_an_error() -> None:
    with pytest.raises(ValueError, match="unknown reply keys"):
        LoopbackServer([{"txt": "typo"}])


def test_it_runs_standalone(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"text": "standalone"}]))
    log = tmp_path / "log.jsonl"
    server = Path(__file__).with_name("loopback.py")
    args = [sys.executable, str(server), "--script", str(script), "--port", "0", "--repeat"]
    args += ["--log", str(log)]
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
        proc.wait(timeout=scaled(10))
    assert [json.loads(line)["seq"] for line in log.read_text().splitlines()] == [1, 2]


def test_the_log_has_one_json_line_per_chat_request(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with LoopbackServer([{"text": "one"}, {"text": "two"}], log_path=log) as srv:
        post(srv.base_url, STREAM)
        urllib.request.urlopen(f"{srv.base_url}/models", timeout=scaled(10)).close()  # not a chat
        post(
            srv.base_url,
            {**STREAM, "stream": False, "messages": [{"role": "user", "content": "é"}]},
        )
        post_anthropic(srv.root_url, {**ANTHROPIC, "stream": False})  # exhausted, still logged
    entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(e["seq"], e["path"]) for e in entries] == [
        (1, "/v1/chat/completions"),
        (2, "/v1/chat/completions"),
        (3, "/v1/messages"),
    ]
    assert entries[0]["body"] == STREAM and entries[1]["body"]["messages"][0]["content"] == "é"
    assert [e["body"] for e in entries] == srv.chat_requests


def test_a_reply_with_match_waits_for_the_request_it_fits() -> None:
    script = [
        {"text": "for the reviewer", "match": r'"content": "review[^"]*"'},
        {"text": "first plain"},
        {"text": "second plain"},
    ]

    def ask(content: str) -> str:
        body = {**STREAM, "stream": False, "messages": [{"role": "user", "content": content}]}
        _, _, raw = post(srv.base_url, body)
        return str(json.loads(raw)["choices"][0]["message"]["content"])

    with LoopbackServer(script) as srv:
        assert ask("hello") == "first plain"  # the matched reply is skipped over, left for later
        assert srv.remaining == 2
        assert ask("review\nthis") == "for the reviewer"  # DOTALL: `.` and [^"] cross lines
        assert ask("review again") == "second plain"  # used replies are not taken twice
        status, _, raw = post(srv.base_url, STREAM)
    assert status == 500 and "script exhausted: 0 scripted replies left" in raw.decode()


def test_an_unmatched_reply_is_named_when_the_script_is_exhausted() -> None:
    with LoopbackServer([Reply(text="later", match="never-sent")]) as srv:
        status, _, raw = post(srv.base_url, STREAM)
        assert srv.remaining == 1
    assert status == 500 and "1 scripted replies left, none fits" in raw.decode()


def test_repeat_starts_a_new_round_when_nothing_unused_fits() -> None:
    script = [{"text": "a"}, {"text": "b", "match": "pick-b"}]
    with LoopbackServer(script, repeat=True) as srv:
        bodies = [
            post(srv.base_url, {**STREAM, "stream": False, "user": user})[2]
            for user in ("x", "x", "pick-b", "pick-b")
        ]
    texts = [json.loads(b)["choices"][0]["message"]["content"] for b in bodies]
    # the second "x" starts round two; the last request takes round three's first fit
    assert texts == ["a", "a", "b", "a"]


def test_a_bad_match_regex_is_an_error() -> None:
    with pytest.raises(ValueError, match="bad match regex"):
        LoopbackServer([{"text": "x", "match": "(unclosed"}])


def test_openai_reports_cache_reads_as_cached_tokens() -> None:
    script = [{"text": "hi", "prompt_tokens": 50, "cache_read_tokens": 40, "cache_write_tokens": 5}]
    with LoopbackServer(script) as srv:
        _, _, raw = post(srv.base_url, {**STREAM, "stream_options": {"include_usage": True}})
    usage = events(raw)[-2]["usage"]
    assert usage["prompt_tokens"] == 50 and usage["prompt_tokens_details"] == {"cached_tokens": 40}


ANTHROPIC = {
    "model": "claude-test",
    "max_tokens": 100,
    "system": [{"type": "text", "text": "be brief"}],
    "messages": [{"role": "user", "content": "hi"}],
    "stream": True,
}


def post_anthropic(root_url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        f"{root_url}/v1/messages",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "x-api-key": "sk-test"},
    )
    try:
        with urllib.request.urlopen(request, timeout=scaled(10)) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def sse_events(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) of every Anthropic SSE frame; the name must match the data's type."""
    frames = []
    for frame in filter(None, raw.decode().split("\n\n")):
        event, data = frame.split("\n")
        assert event.startswith("event: ") and data.startswith("data: ")
        payload = json.loads(data[6:])
        assert payload["type"] == event[7:]
        frames.append((event[7:], payload))
    return frames


def test_anthropic_streams_text_and_tool_use_with_cache_usage() -> None:
    reply = {
        "text": "Reading it.",
        "tool_calls": [{"name": "read_file", "arguments": '{"path": "a.py"}'}],
        "prompt_tokens": 100,
        "completion_tokens": 9,
        "cache_read_tokens": 60,
        "cache_write_tokens": 30,
    }
    with LoopbackServer([reply]) as srv:
        status, headers, raw = post_anthropic(srv.root_url, ANTHROPIC)
    assert status == 200 and headers["Content-Type"] == "text/event-stream"
    frames = sse_events(raw)
    names = [name for name, _ in frames]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == [
        "message_delta",
        "message_stop",
    ]
    usage = frames[0][1]["message"]["usage"]
    assert usage["input_tokens"] == 10  # the uncached rest, as Anthropic counts it
    assert (usage["cache_read_input_tokens"], usage["cache_creation_input_tokens"]) == (60, 30)
    starts = [d["content_block"] for n, d in frames if n == "content_block_start"]
    assert starts == [
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {}},
    ]
    deltas = [d for n, d in frames if n == "content_block_delta"]
    text = "".join(d["delta"]["text"] for d in deltas if d["delta"]["type"] == "text_delta")
    args = "".join(
        d["delta"]["partial_json"] for d in deltas if d["delta"]["type"] == "input_json_delta"
    )
    assert text == "Reading it." and args == '{"path": "a.py"}' and len(deltas) > 2
    assert frames[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert frames[-2][1]["usage"] == {"output_tokens": 9}


def test_anthropic_without_stream_gets_one_message_and_errors_in_its_shape() -> None:
    script = [
        {"text": "hi", "tool_calls": [{"name": "glob", "arguments": {"pattern": "*"}}]},
        {"status": 529, "error": "Overloaded"},
    ]
    with LoopbackServer(script) as srv:
        _, _, raw = post_anthropic(srv.root_url, {**ANTHROPIC, "stream": False})
        status, _, error = post_anthropic(srv.root_url, ANTHROPIC)
        exhausted, _, _ = post_anthropic(srv.root_url, ANTHROPIC)
    message = json.loads(raw)
    assert message["type"] == "message" and message["stop_reason"] == "tool_use"
    assert message["content"] == [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "toolu_1", "name": "glob", "input": {"pattern": "*"}},
    ]
    assert message["usage"]["output_tokens"] > 0
    assert status == 529 and json.loads(error) == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert exhausted == 500


def test_a_truncated_anthropic_stream_has_no_message_delta() -> None:
    with LoopbackServer([{"text": "partial", "truncate": True}]) as srv:
        _, _, raw = post_anthropic(srv.root_url, ANTHROPIC)
    names = [name for name, _ in sse_events(raw)]
    assert "content_block_delta" in names and "message_delta" not in names
    assert "message_stop" not in names


def test_an_anthropic_stream_stalls_after_its_first_pieces() -> None:
    with LoopbackServer([{"text": "abcdef", "stall_s": 0.3, "stall_after": 2}]) as srv:
        start = time.monotonic()
        _, _, raw = post_anthropic(srv.root_url, ANTHROPIC)
        assert srv.stalling.is_set() and time.monotonic() - start >= 0.3
    assert [n for n, _ in sse_events(raw)][-1] == "message_stop"


@pytest.mark.slow  # a zizou process, or litellm imported
async def test_litellm_streams_from_the_anthropic_endpoint() -> None:
    """litellm's own Anthropic route (URL, headers, SSE parsing) against the server."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    reply = {
        "text": "Sure.",
        "tool_calls": [{"name": "read_file", "arguments": '{"path": "a.py"}'}],
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "cache_read_tokens": 60,
        "cache_write_tokens": 30,
    }
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    with LoopbackServer([reply]) as srv:
        response = await litellm.acompletion(
            model="anthropic/claude-3-5-sonnet-20241022",
            api_base=srv.root_url,
            api_key="sk-test",
            messages=messages,
            stream=True,
            num_retries=0,
            max_retries=0,
        )
        chunks = [chunk async for chunk in response]
        [request] = srv.requests
    assert request.path == "/v1/messages" and request.headers["x-api-key"] == "sk-test"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.body["system"] == [{"type": "text", "text": "be brief"}]
    assert request.body["stream"] is True
    built = litellm.stream_chunk_builder(chunks, messages=messages)
    message = built.choices[0].message
    assert message.content == "Sure." and built.choices[0].finish_reason == "tool_calls"
    assert message.tool_calls[0].function.arguments == '{"path": "a.py"}'
    assert (built.usage.prompt_tokens, built.usage.completion_tokens) == (100, 7)
    assert built.usage.cache_read_input_tokens == 60
    assert built.usage.cache_creation_input_tokens == 30
