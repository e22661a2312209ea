"""LiteLLMModel's three timeouts over litellm's real HTTP path, against the loopback server."""

from __future__ import annotations

from typing import Any

import pytest
from loopback import LoopbackServer  # tests/ is on sys.path (tests/conftest.py)

from zizou.contracts.protocols import ModelReply, ModelRequest, TextPiece
from zizou.errors import ProviderError
from zizou.providers import LiteLLMModel
from zizou.providers.settings import TimeoutSettings

REQUEST = ModelRequest(system="s", messages=[{"role": "user", "content": "hi"}], tools=[])
SHORT = TimeoutSettings(connect_s=0.4, first_token_s=0.4, idle_s=0.4)


async def stream(reply: dict[str, Any], timeouts: TimeoutSettings) -> tuple[list[Any], Any]:
    """The events before the failure (or all of them), and the error (or None)."""
    events: list[Any] = []
    with LoopbackServer([reply]) as srv:
        llm = LiteLLMModel(
            "openai/gpt-4o", api_base=srv.base_url, api_key="sk-x", timeouts=timeouts
        )
        try:
            async for event in llm.stream(REQUEST):
                events.append(event)
        except ProviderError as err:
            return events, err
    return events, None


@pytest.mark.parametrize(
    ("reply", "which"),
    [
        (
            {"text": "slow", "delay_s": 10},
            "did not start answering within 0.4 s (timeouts.connect_s)",
        ),
        (
            {"text": "slow to start", "stall_s": 10, "stall_after": 0},
            "sent no first token within 0.4 s (timeouts.first_token_s)",
        ),
        (
            {"text": "stops mid reply", "stall_s": 10},
            "stalled for 0.4 s mid-reply (timeouts.idle_s)",
        ),
    ],
    ids=["connect", "first_token", "idle"],
)
async def test_each_stall_raises_a_retryable_error_naming_its_timeout(
    reply: dict[str, Any], which: str
) -> None:
    events, err = await stream(reply, SHORT)
    assert isinstance(err, ProviderError) and err.retryable
    assert which in str(err) and "config.toml" in str(err)
    assert not any(isinstance(e, ModelReply) for e in events)


async def test_the_idle_timeout_starts_after_the_first_token() -> None:
    """A slow first token is fine under first_token_s, though it is longer than idle_s."""
    timeouts = TimeoutSettings(first_token_s=5, idle_s=0.3)
    events, err = await stream({"text": "a b c", "stall_s": 0.8, "stall_after": 0}, timeouts)
    assert err is None
    assert "".join(e.text for e in events if isinstance(e, TextPiece)) == "a b c"


async def test_pauses_shorter_than_the_idle_timeout_pass() -> None:
    timeouts = TimeoutSettings(idle_s=1.5)
    events, err = await stream({"text": "one two three four", "chunk_delay_s": 0.2}, timeouts)
    assert err is None and events[-1].text == "one two three four"


def test_litellm_own_timeout_is_a_backstop_above_ours() -> None:
    llm = LiteLLMModel("openai/gpt-4o", timeouts=TimeoutSettings(first_token_s=20, idle_s=7))
    assert llm.timeout_s > 20


async def test_first_token_s_bounds_a_server_that_sends_no_headers_either() -> None:
    """The server took the request and says nothing: the shorter first_token_s gives up."""
    timeouts = TimeoutSettings(connect_s=30, first_token_s=0.4, idle_s=30)
    _, err = await stream({"text": "never", "delay_s": 30}, timeouts)
    assert isinstance(err, ProviderError) and err.retryable
    assert "sent no first token within 0.4 s (timeouts.first_token_s)" in str(err)
