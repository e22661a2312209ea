"""The error classifier: what is worth retrying, and messages that name the cause and the fix.
Exceptions are stand-ins named like litellm's; the loopback tests cover the real ones."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from zizou.providers.errors import (
    ContextOverflowError,
    UnknownModelAnswer,
    context_window_in,
    to_provider_error,
)


@dataclass(frozen=True)
class CalledModel:
    id: str = "anthropic/claude-sonnet-4-5"
    provider: str = "anthropic"
    api_base: str | None = None
    api_key: str | None = "sk-ant-secret-0123456789"
    timeout_s: float = 95.0
    context_window: int | None = 200_000


def error(name: str, status: int | None, message: str = "boom") -> Exception:
    cls = type(name, (Exception,), {})
    exc = cls(message)
    exc.status_code = status  # type: ignore[attr-defined]
    return exc


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("Timeout", 408, "Request timed out"),
        ("APIError", 409, "conflict"),
        ("APIError", 425, "too early"),
        ("RateLimitError", 429, "slow down"),
        ("InternalServerError", 500, "oops"),
        ("BadRequestError", 503, "unavailable"),  # litellm's class can mislead
        ("InternalServerError", 500, '{"type": "overloaded_error", "message": "Overloaded"}'),
        ("APIError", 529, "Overloaded"),
        ("APIConnectionError", None, "Connection refused"),
    ],
)
def test_transient_failures_are_retryable(name: str, status: int | None, message: str) -> None:
    assert to_provider_error(error(name, status, message), CalledModel()).retryable


@pytest.mark.parametrize(
    ("name", "status", "words"),
    [
        ("BadRequestError", 400, "rejected the request (400)"),
        ("AuthenticationError", 401, "was rejected"),
        ("PermissionDeniedError", 403, "refused access"),
        ("NotFoundError", 404, "does not know the model"),
        ("APIError", 413, "rejected the request (413)"),
        ("UnprocessableEntityError", 422, "rejected the request (422)"),
        ("ContentPolicyViolationError", 400, "content policy"),
    ],
)
def test_failures_retrying_cannot_fix_are_final(name: str, status: int, words: str) -> None:
    err = to_provider_error(error(name, status), CalledModel())
    assert not err.retryable and words in str(err)


def test_overloaded_names_the_cause_whatever_the_status() -> None:
    body = "litellm.InternalServerError: AnthropicException - Overloaded"
    for status in (500, 529):
        message = str(to_provider_error(error("InternalServerError", status, body), CalledModel()))
        assert message.startswith(f"anthropic is overloaded ({status}); try again shortly")


def test_a_rejected_key_names_both_fixes_and_never_the_key() -> None:
    exc = error("AuthenticationError", 401, "invalid x-api-key sk-ant-secret-0123456789")
    err = to_provider_error(exc, CalledModel())
    assert err.status == 401 and not err.retryable
    assert str(err).startswith(
        "the key for anthropic was rejected; run `zizou keys set anthropic` or set "
        "ANTHROPIC_API_KEY to a valid key"
    )
    assert "sk-ant-secret-0123456789" not in str(err)


def test_an_overflow_carries_the_context_window() -> None:
    exc = error("ContextWindowExceededError", 400, "prompt is too long: 210000 tokens > 200000")
    err = to_provider_error(exc, CalledModel(context_window=None))
    assert isinstance(err, ContextOverflowError) and err.context_window == 200_000
    assert not err.retryable and "too long for anthropic/claude-sonnet-4-5" in str(err)
    unknown = error("ContextWindowExceededError", 400, "too long")
    assert to_provider_error(unknown, CalledModel()).context_window == 200_000  # from the model map


@pytest.mark.parametrize(
    ("text", "window"),
    [
        ("This model's maximum context length is 128000 tokens. However, ...", 128_000),
        ("prompt is too long: 210,000 tokens > 200,000 maximum", 200_000),
        ("input exceeds the context window of 32768 tokens", 32_768),
        ("too long", None),
    ],
)
def test_the_context_window_is_read_from_the_error_text(text: str, window: int | None) -> None:
    assert context_window_in(text) == window


def test_no_such_model_is_a_usage_error_naming_the_nearest_id() -> None:
    exc = error("NotFoundError", 404, "model: claude-sonet-4-5 not_found_error")
    err = to_provider_error(exc, CalledModel(id="anthropic/claude-sonet-4-5"))
    assert isinstance(err, UnknownModelAnswer) and err.exit_code == 2 and not err.retryable
    assert str(err).startswith("anthropic has no model anthropic/claude-sonet-4-5: did you mean ")
    served = to_provider_error(exc, CalledModel(api_base="http://127.0.0.1:8000/v1"))
    assert "check the id against the models http://127.0.0.1:8000/v1 serves" in str(served)
