"""Prompt caching through LiteLLMModel and litellm's real HTTP path: Claude gets the system
prompt's stable prefix marked for caching, other providers the plain string, and the cache
counts the server reports come back in Usage."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from loopback import LoopbackServer  # tests/ is on sys.path (tests/conftest.py)

from zizou.contracts.events import Usage
from zizou.contracts.protocols import ModelReply, ModelRequest
from zizou.providers import LiteLLMModel
from zizou.providers.litellm_model import _litellm, _marks_cache, _usage

KEY = "sk-test-0123456789abcdefXYZ"
STABLE = "You are zizou.\n\n# Rules\nBe brief.\n"
VOLATILE = "# Now\nThe time is 12:00.\n"
CACHED = {
    "text": "ok",
    "prompt_tokens": 100,
    "completion_tokens": 5,
    "cache_read_tokens": 60,
    "cache_write_tokens": 30,
}
MARK = {"type": "ephemeral"}


@pytest.fixture(autouse=True)
def no_stdout(capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    """litellm must never write to stdout: it would corrupt the TUI."""
    yield
    assert capfd.readouterr().out == ""


def request(stable_chars: int) -> ModelRequest:
    messages = [{"role": "user", "content": "hi"}]
    return ModelRequest(STABLE + VOLATILE, messages, [], stable_chars=stable_chars)


async def ask(
    model: str, req: ModelRequest, log: Path, reply: dict[str, Any] = CACHED
) -> tuple[ModelReply, dict[str, Any]]:
    """The reply, and the request body as the server logged it."""
    with LoopbackServer([reply], log_path=log) as srv:
        base = srv.root_url if "claude" in model else srv.base_url
        llm = LiteLLMModel(model, api_base=base, api_key=KEY)
        events = [event async for event in llm.stream(req)]
    [entry] = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert isinstance(events[-1], ModelReply)
    return events[-1], entry["body"]


@pytest.mark.parametrize("model", ["anthropic/claude-3-5-sonnet-20241022", "claude-sonnet-4-5"])
async def test_claude_gets_the_stable_prefix_marked_and_reports_the_cache(
    model: str, tmp_path: Path
) -> None:
    reply, body = await ask(model, request(len(STABLE)), tmp_path / "log.jsonl")
    assert body["system"] == [
        {"type": "text", "text": STABLE, "cache_control": MARK},
        {"type": "text", "text": VOLATILE},
    ]
    assert reply.usage.cache_read_tokens == 60 and reply.usage.cache_write_tokens == 30
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (100, 5)  # cache included


async def test_an_all_stable_prompt_is_one_marked_block(tmp_path: Path) -> None:
    req = request(len(STABLE + VOLATILE))
    _, body = await ask("anthropic/claude-sonnet-4-5", req, tmp_path / "log.jsonl")
    assert body["system"] == [{"type": "text", "text": STABLE + VOLATILE, "cache_control": MARK}]


async def test_without_a_stable_prefix_claude_gets_the_prompt_as_before(tmp_path: Path) -> None:
    plain = {"text": "ok", "prompt_tokens": 10}
    reply, body = await ask("anthropic/claude-sonnet-4-5", request(0), tmp_path / "l", plain)
    assert body["system"] == [{"type": "text", "text": STABLE + VOLATILE}]
    assert (reply.usage.cache_read_tokens, reply.usage.cache_write_tokens) == (0, 0)


async def test_openai_gets_a_plain_string_and_reports_cache_reads(tmp_path: Path) -> None:
    reply, body = await ask("openai/gpt-4o", request(len(STABLE)), tmp_path / "log.jsonl")
    assert body["messages"][0] == {"role": "system", "content": STABLE + VOLATILE}
    assert reply.usage.cache_read_tokens == 60  # prompt_tokens_details.cached_tokens
    assert reply.usage.cache_write_tokens == 0  # OpenAI does not report writes
    assert reply.usage.input_tokens == 100


@pytest.mark.parametrize(
    ("model", "marked"),
    [
        ("anthropic/claude-3-5-sonnet-20241022", True),
        ("claude-3-5-sonnet-20241022", True),  # unknown to litellm's map: zizou's own guess
        ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", True),
        ("vertex_ai/claude-3-5-sonnet@20240620", True),
        ("openai/gpt-4o", False),
        ("gpt-4o", False),
        ("openrouter/anthropic/claude-3.5-sonnet", False),
        ("gemini/gemini-2.5-pro", False),
        ("ollama_chat/qwen2.5-coder", False),
    ],
)
def test_which_routes_get_the_cache_mark(model: str, marked: bool) -> None:
    assert _marks_cache(_litellm(), model) is marked


def test_usage_without_cache_fields_counts_zero() -> None:
    bare = SimpleNamespace(prompt_tokens=7, completion_tokens=3)
    assert _usage(bare, None) == Usage(7, 3)
    odd = SimpleNamespace(prompt_tokens=7, cache_read_input_tokens=None, prompt_tokens_details=None)
    assert _usage(odd, 0.5) == Usage(7, 0, 0.5)
    assert _usage(None, None) == Usage()
