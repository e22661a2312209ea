"""The model's reasoning over litellm's real HTTP path: an OpenAI-compatible server's
`reasoning_content` deltas and Anthropic's thinking blocks come out as ReasoningDeltas, in the
order they streamed, and never as part of the reply's text."""

from __future__ import annotations

from typing import Any

import pytest
from loopback import LoopbackServer  # tests/ is on sys.path (tests/conftest.py)

from zizou.contracts.events import ReasoningDelta
from zizou.contracts.protocols import ModelReply, ModelRequest, TextPiece
from zizou.providers import LiteLLMModel
from zizou.providers.fake import ScriptedModel
from zizou.providers.json_protocol import JsonProtocolModel

KEY = "sk-test-0123456789abcdefXYZ"
REQUEST = ModelRequest(
    system="You are zizou.", messages=[{"role": "user", "content": "hi"}], tools=[]
)
SCRIPT = [{"reasoning": "The user greets me. I greet back.", "text": "Hello!", "pieces": 3}]


def kinds(events: list[Any]) -> list[str]:
    return [type(event).__name__ for event in events]


@pytest.mark.slow  # litellm imported
@pytest.mark.parametrize(
    ("model", "url", "key"),
    [
        ("openai/gpt-4o", "base_url", "reasoning_content"),  # DeepSeek, LiteLLM's proxy
        ("openai/qwen3", "base_url", "reasoning"),  # vLLM, Ollama
        ("anthropic/claude-sonnet-4-5", "root_url", ""),  # thinking blocks
    ],
)
async def test_reasoning_streams_before_the_text_and_stays_out_of_the_reply(
    model: str, url: str, key: str
) -> None:
    script = [{**SCRIPT[0], "reasoning_key": key}] if key else SCRIPT
    with LoopbackServer(script) as srv:
        llm = LiteLLMModel(model, api_base=getattr(srv, url), api_key=KEY)
        events = [event async for event in llm.stream(REQUEST)]
    assert kinds(events) == ["ReasoningDelta"] * 3 + ["TextPiece"] * 3 + ["ModelReply"]
    thought = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    assert thought == "The user greets me. I greet back."
    reply = events[-1]
    assert isinstance(reply, ModelReply) and reply.text == "Hello!"
    assert "".join(e.text for e in events if isinstance(e, TextPiece)) == "Hello!"


@pytest.mark.slow
async def test_a_reply_without_reasoning_streams_no_reasoning() -> None:
    with LoopbackServer([{"text": "Hello!"}]) as srv:
        llm = LiteLLMModel("openai/gpt-4o", api_base=srv.base_url, api_key=KEY)
        events = [event async for event in llm.stream(REQUEST)]
    assert "ReasoningDelta" not in kinds(events)


async def test_the_json_protocol_passes_the_reasoning_on_but_not_its_envelope() -> None:
    envelope = '{"messageToUser": "Hello!"}'
    inner = ScriptedModel([{"reasoning": "A greeting.", "text": envelope}], id="ollama/tiny")
    events = [event async for event in JsonProtocolModel(inner).stream(REQUEST)]
    assert kinds(events) == ["ReasoningDelta"] * 3 + ["TextPiece", "ModelReply"]
    assert events[-2] == TextPiece("Hello!")
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "A greeting."
