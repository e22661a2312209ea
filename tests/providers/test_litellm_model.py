"""LiteLLMModel over litellm's real HTTP path, against the loopback server (no network)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncGenerator, Iterator
from typing import Any, cast

import pytest
from loopback import LoopbackServer  # tests/ is on sys.path (tests/conftest.py)
from waiting import scaled

from zizou.contracts.protocols import Model, ModelReply, ModelRequest, TextPiece
from zizou.errors import ProviderError
from zizou.providers import LiteLLMModel, env_var_for, key_from_env, make_model, provider_of
from zizou.providers.errors import mask_key, retry_after_of
from zizou.providers.litellm_model import preload
from zizou.providers.settings import TimeoutSettings

KEY = "sk-test-0123456789abcdefXYZ"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
REQUEST = ModelRequest(
    system="You are zizou.", messages=[{"role": "user", "content": "hi"}], tools=TOOLS
)


@pytest.fixture(autouse=True)
def no_stdout(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """litellm must never write to stdout: it would corrupt the TUI."""
    yield
    assert capfd.readouterr().out == ""


async def run(srv: LoopbackServer, model: str = "openai/gpt-4o", **kw: Any) -> list[Any]:
    llm = LiteLLMModel(model, api_base=srv.base_url, api_key=KEY, **kw)
    return [event async for event in llm.stream(REQUEST)]


async def fail(script: list[dict[str, Any]], **kw: Any) -> tuple[ProviderError, LoopbackServer]:
    with LoopbackServer(script) as srv, pytest.raises(ProviderError) as info:
        await run(srv, **kw)
    assert len(srv.chat_requests) == 1  # litellm's and the SDK's retries are off
    return info.value, srv


async def test_text_streams_in_pieces_and_the_reply_has_it_all() -> None:
    script = [{"text": "Hello there, world", "prompt_tokens": 11, "completion_tokens": 7}]
    with LoopbackServer(script) as srv:
        events = await run(srv)
    pieces, reply = events[:-1], events[-1]
    assert len(pieces) >= 2 and all(isinstance(p, TextPiece) for p in pieces)
    assert isinstance(reply, ModelReply)
    assert "".join(p.text for p in pieces) == reply.text == "Hello there, world"
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (11, 7)
    assert reply.finish_reason == "stop" and reply.tool_calls == ()
    assert reply.usage.cost_usd is not None and reply.usage.cost_usd > 0  # gpt-4o has a price
    [body] = srv.chat_requests
    assert body["messages"][0] == {"role": "system", "content": "You are zizou."}
    assert body["messages"][1] == {"role": "user", "content": "hi"}
    assert body["tools"] == TOOLS
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert srv.requests[0].headers["authorization"] == f"Bearer {KEY}"


async def test_parallel_tool_calls_are_reassembled_exactly() -> None:
    calls = [
        {"name": "read_file", "arguments": '{"path": "a.py"}', "id": "call_abc"},
        {"name": "grep", "arguments": '{"pattern": "def main", "path": "src"}'},
    ]
    with LoopbackServer([{"text": "Looking.", "tool_calls": calls, "pieces": 4}]) as srv:
        events = await run(srv)
    reply = events[-1]
    assert reply.text == "Looking." and reply.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in reply.tool_calls] == [
        ("call_abc", "read_file", '{"path": "a.py"}'),
        ("call_1", "grep", '{"pattern": "def main", "path": "src"}'),
    ]


async def test_malformed_arguments_come_through_raw() -> None:
    bad = '{"path": "a.py", oops'
    with LoopbackServer([{"tool_calls": [{"name": "read_file", "arguments": bad}]}]) as srv:
        events = await run(srv)
    assert events[-1].tool_calls[0].arguments == bad


async def test_an_unknown_model_has_no_cost_and_no_tools_are_sent_when_there_are_none() -> None:
    with LoopbackServer([{"text": "ok"}]) as srv:
        llm = LiteLLMModel("openai/zizou-no-such-model", api_base=srv.base_url, api_key=KEY)
        request = ModelRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
        events = [event async for event in llm.stream(request)]
    assert events[-1].text == "ok" and events[-1].usage.cost_usd is None
    assert "tools" not in srv.chat_requests[0]


@pytest.mark.parametrize(
    "reply",
    [
        {"text": "half an ans", "truncate": True},
        {"tool_calls": [{"name": "read_file"}], "truncate": True},
        {"text": "cut off by a proxy", "truncate": "reset"},
    ],
)
async def test_a_truncated_stream_is_a_retryable_failure(reply: dict[str, Any]) -> None:
    err, _ = await fail([reply])
    assert err.retryable and "ended before it finished" in str(err)


async def test_an_empty_reply_is_a_failure() -> None:
    err, _ = await fail([{"text": ""}])
    assert err.retryable and "neither text nor tool calls" in str(err)


async def test_401_names_the_env_var_and_masks_the_key() -> None:
    err, _ = await fail([{"status": 401, "error": f"Incorrect API key provided: {KEY}"}])
    assert not err.retryable and err.status == 401
    assert "OPENAI_API_KEY" in str(err) and KEY not in str(err)


async def test_429_is_retryable_with_retry_after() -> None:
    err, _ = await fail([{"status": 429, "retry_after": 2, "error_type": "requests"}])
    assert err.retryable and err.status == 429 and err.retry_after == 2.0


@pytest.mark.parametrize(
    "reply",
    [
        {"status": 500, "error_type": "server_error"},
        {"status": 500},  # litellm calls this one a BadRequestError
        {"status": 503, "retry_after": 3},
        {"status": 529, "error": "Overloaded", "error_type": "overloaded_error"},
    ],
)
async def test_server_errors_are_retryable(reply: dict[str, Any]) -> None:
    err, _ = await fail([reply])
    assert err.retryable and err.status == reply["status"]
    assert err.retry_after == reply.get("retry_after")


@pytest.mark.parametrize(
    ("message", "words"),
    [
        ("This model's maximum context length is 128000 tokens.", "context window"),
        ("Invalid value for 'tools'.", "rejected the request (400)"),
    ],
)
async def test_bad_requests_are_not_retryable(message: str, words: str) -> None:
    err, _ = await fail([{"status": 400, "error": message}])
    assert not err.retryable and err.status == 400 and words in str(err)


async def test_a_stalled_stream_times_out_as_retryable() -> None:
    err, _ = await fail(
        [{"text": "slow reply", "stall_s": 10}], timeouts=TimeoutSettings(idle_s=0.5)
    )
    assert err.retryable and "stalled for 0.5 s mid-reply (timeouts.idle_s)" in str(err)


async def test_an_unreachable_server_is_retryable() -> None:
    llm = LiteLLMModel("openai/gpt-4o", api_base="http://127.0.0.1:9/v1", api_key=KEY)
    with pytest.raises(ProviderError) as info:
        [e async for e in llm.stream(REQUEST)]
    assert info.value.retryable and "could not reach http://127.0.0.1:9/v1" in str(info.value)


async def test_stopping_early_during_a_stall_does_not_hang() -> None:
    with LoopbackServer([{"text": "one two three", "stall_s": 30}]) as srv:
        llm = LiteLLMModel("openai/gpt-4o", api_base=srv.base_url, api_key=KEY)
        stream = cast(AsyncGenerator[Any, None], llm.stream(REQUEST))
        first = await anext(stream)
        await asyncio.wait_for(
            stream.aclose(), timeout=scaled(5)
        )  # frees the connection, no waiting
    assert isinstance(first, TextPiece)


def test_retry_after_accepts_seconds_milliseconds_and_dates() -> None:
    def error(headers: dict[str, str]) -> Exception:
        exc = Exception("429")
        exc.litellm_response_headers = headers  # type: ignore[attr-defined]
        return exc

    assert retry_after_of(error({"Retry-After": "1.5"})) == 1.5
    assert retry_after_of(error({"retry-after-ms": "250"})) == 0.25
    assert retry_after_of(error({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"})) == 0.0
    assert retry_after_of(error({"retry-after": "soon"})) is None
    assert retry_after_of(Exception("no headers")) is None


def test_keys_are_masked() -> None:
    assert mask_key(KEY) == "sk-...fXYZ" and mask_key("short") == "****"
    assert KEY not in repr(LiteLLMModel("gpt-4o", api_key=KEY))


def test_make_model_routes_bare_names_to_a_custom_base() -> None:
    model = make_model("local-model", api_base="http://127.0.0.1:1/v1")
    assert isinstance(model, Model) and model.id == "openai/local-model"
    assert make_model("claude-sonnet-4-5").id == "claude-sonnet-4-5"
    assert make_model("gpt-4o").id == "gpt-4o"


def test_preload_imports_litellm_quietly() -> None:
    preload()
    assert sys.modules["litellm"].suppress_debug_info is True


def test_importing_the_providers_does_not_import_litellm() -> None:
    code = (
        "import sys, zizou.providers as p\n"
        "p.make_model('gpt-4o')\n"
        "assert 'litellm' not in sys.modules, 'litellm was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=scaled(60))


@pytest.mark.parametrize(
    ("model_id", "provider", "var"),
    [
        ("openai/gpt-4o", "openai", "OPENAI_API_KEY"),
        ("gpt-4o", "openai", "OPENAI_API_KEY"),
        ("o3-mini", "openai", "OPENAI_API_KEY"),
        ("claude-sonnet-4-5", "anthropic", "ANTHROPIC_API_KEY"),
        ("anthropic/claude-opus-4", "anthropic", "ANTHROPIC_API_KEY"),
        ("gemini/gemini-2.5-pro", "gemini", "GEMINI_API_KEY"),
        ("groq/llama-3.3-70b", "groq", "GROQ_API_KEY"),
        ("openrouter/qwen/qwen3-coder", "openrouter", "OPENROUTER_API_KEY"),
        ("ollama/qwen2.5-coder", "ollama", None),
        ("deepseek/deepseek-chat", "deepseek", "DEEPSEEK_API_KEY"),
    ],
)
def test_env_keys_know_the_provider_and_its_variable(
    model_id: str, provider: str, var: str | None
) -> None:
    assert provider_of(model_id) == provider and env_var_for(provider) == var
    environ = {var: " key-123 "} if var else {}
    assert key_from_env(model_id, environ) == ("key-123" if var else None)
    assert key_from_env(model_id, {}) is None
