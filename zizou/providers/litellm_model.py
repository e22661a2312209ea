"""The one place zizou talks to litellm: stream a chat completion, assemble the reply, and turn
litellm's exceptions into ProviderErrors that name the cause and the fix.

litellm is imported lazily (it takes ~2 s), with its price table read from the package instead
of the internet and its stdout banner switched off: stray stdout would corrupt the TUI. zizou
owns the retry policy, so every call goes out with litellm's and the OpenAI SDK's retries off.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

from zizou.core.events import Usage
from zizou.core.protocols import ModelEvent, ModelReply, ModelRequest, TextPiece, ToolCall
from zizou.errors import ProviderError
from zizou.providers.env_keys import env_var_for, provider_of

_KEYLIKE = re.compile(r"\b(sk-|sk_|gsk_|AIza)[\w\-]{12,}")
_NOISE = re.compile(r"^(?:[\w.]+:\s|\w+Exception - )+")  # "litellm.XError: OpenAIException - "
_TIMEOUTS = {"Timeout", "APITimeoutError", "TimeoutException", "TimeoutError"}
_CONNECTION = {"APIConnectionError", "ConnectError", "ConnectionError", "MidStreamFallbackError"}
_RETRYABLE_STATUS = {408, 409, 425, 429}


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def preload() -> None:
    """Import litellm ahead of the first request (the TUI calls this in a background thread)."""
    _litellm()


def mask_key(key: str) -> str:
    return "****" if len(key) < 12 else f"{key[:3]}...{key[-4:]}"


class LiteLLMModel:
    """A Model backed by `litellm.acompletion`, streaming."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 600,
        extra: dict[str, Any] | None = None,  # more keyword arguments for acompletion
    ) -> None:
        self.id = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeout_s = timeout_s
        self.extra = dict(extra or {})

    def __repr__(self) -> str:
        key = mask_key(self.api_key) if self.api_key else None
        return f"LiteLLMModel({self.id!r}, api_base={self.api_base!r}, api_key={key!r})"

    @property
    def provider(self) -> str:
        return provider_of(self.id)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        litellm = _litellm()
        messages = request.full_messages()
        chunks: list[Any] = []
        response: Any = None
        try:
            response = await litellm.acompletion(**self._arguments(request, messages))
            async for chunk in response:
                chunks.append(chunk)
                text = _content(chunk)
                if text:
                    yield TextPiece(text)
        except Exception as exc:
            raise to_provider_error(exc, self, mid_stream=bool(chunks)) from exc
        finally:
            if response is not None and hasattr(response, "aclose"):
                await response.aclose()  # frees the connection when the consumer stops early
        received = getattr(response, "received_finish_reason", "unknown") or getattr(
            response, "intermittent_finish_reason", None
        )
        if received is None:  # litellm synthesizes "stop" for a stream that just ended
            raise ProviderError(
                f"the stream from {self.provider} ended before it finished; "
                "nothing from it was run, try again",
                retryable=True,
            )
        yield self._assemble(litellm, chunks, messages)

    def _arguments(self, request: ModelRequest, messages: list[dict[str, Any]]) -> dict[str, Any]:
        arguments: dict[str, Any] = {
            "model": self.id,
            "messages": messages,
            "tools": request.tools or None,
            "stream": True,
            "stream_options": {"include_usage": True},
            "num_retries": 0,
            "max_retries": 0,
            "timeout": self.timeout_s,
        }
        if self.api_base:
            arguments["api_base"] = self.api_base
        if self.api_key:
            arguments["api_key"] = self.api_key
        return arguments | self.extra

    def _assemble(self, litellm: Any, chunks: list[Any], messages: list[Any]) -> ModelReply:
        try:
            built = litellm.stream_chunk_builder(chunks, messages=messages) if chunks else None
        except Exception as exc:
            raise to_provider_error(exc, self, mid_stream=True) from exc
        if built is None or not built.choices:
            raise ProviderError(f"{self.provider} sent an empty stream; try again", retryable=True)
        choice = built.choices[0]
        text = choice.message.content or ""
        calls = tuple(
            ToolCall(
                id=call.id or f"call_{number}",
                name=call.function.name or "",
                arguments=call.function.arguments or "",
            )
            for number, call in enumerate(choice.message.tool_calls or (), 1)
        )
        if not text and not calls:
            raise ProviderError(
                f"{self.provider} sent a reply with neither text nor tool calls; try again",
                retryable=True,
            )
        usage = getattr(built, "usage", None)
        return ModelReply(
            text=text,
            tool_calls=calls,
            usage=Usage(
                input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                cost_usd=_cost(litellm, built, self.id),
            ),
            finish_reason=choice.finish_reason,
        )


def _content(chunk: Any) -> str:
    choices = getattr(chunk, "choices", None)
    if not choices or choices[0].delta is None:
        return ""
    return choices[0].delta.content or ""


def _cost(litellm: Any, built: Any, model: str) -> float | None:
    try:
        return float(litellm.completion_cost(completion_response=built, model=model))
    except Exception:  # an unknown model has no price: that is not an error
        return None


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _detail(exc: BaseException, api_key: str | None) -> str:
    lines = str(exc).strip().splitlines()
    text = _NOISE.sub("", lines[0] if lines else "") or type(exc).__name__
    if api_key:
        text = text.replace(api_key, mask_key(api_key))
    text = _KEYLIKE.sub(lambda m: m.group(1) + "****", text)
    return text if len(text) <= 300 else text[:297] + "..."


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds from a Retry-After(-ms) header on the error's response, if there is one."""
    for source in (
        getattr(exc, "litellm_response_headers", None),
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if not source or not hasattr(source, "items"):
            continue
        headers = {str(k).lower(): str(v) for k, v in source.items()}
        try:
            if "retry-after-ms" in headers:
                return max(0.0, float(headers["retry-after-ms"]) / 1000)
            if "retry-after" in headers:
                return _parse_retry_after(headers["retry-after"])
        except ValueError:
            continue
    return None


def _parse_retry_after(value: str) -> float:
    try:
        return max(0.0, float(value))
    except ValueError:
        when = parsedate_to_datetime(value)  # raises ValueError when it is no date either
        return max(0.0, (when - datetime.now(UTC)).total_seconds())


_MESSAGES = {
    "context": "the conversation is too long for {model}'s context window: start a new session "
    "or unpin files ({detail})",
    "timeout": "{who} did not answer within {timeout:g} s; try again, or check {where}",
    "forbidden": "{who} refused access to {model}: check your key may use it ({detail})",
    "rate_limit": "{who} is limiting requests (429): wait, or check your plan's limits ({detail})",
    "broken": "the stream from {who} broke off before it finished; try again ({detail})",
    "unreachable": "could not reach {where}: check {check} ({detail})",
    "server": "{who} failed on its side ({status}); try again shortly ({detail})",
    "not_found": "{who} does not know the model {model!r}: check the model id ({detail})",
    "rejected": "{who} rejected the request ({status}): {detail}",
    "unknown": "calling {model} failed: {detail}",
}
_RETRYABLE_KINDS = {"timeout", "rate_limit", "broken", "unreachable", "server"}


def _kind(names: set[str], status: int | None, text: str, mid_stream: bool) -> str:
    if "ContextWindowExceededError" in names:
        return "context"
    if names & _TIMEOUTS or "timeout on reading" in text or "timed out" in text:
        return "timeout"
    if status == 401 or "AuthenticationError" in names:
        return "auth"
    if status == 403 or "PermissionDeniedError" in names:
        return "forbidden"
    if status == 429 or "RateLimitError" in names:
        return "rate_limit"
    if names & _CONNECTION:
        return "broken" if mid_stream else "unreachable"
    if "overloaded" in text or (status or 0) >= 500 or status in _RETRYABLE_STATUS:
        return "server"
    if status == 404 or "NotFoundError" in names:
        return "not_found"
    return "rejected" if status is not None and 400 <= status < 500 else "unknown"


def to_provider_error(
    exc: BaseException, model: LiteLLMModel, *, mid_stream: bool = False
) -> ProviderError:
    """Classify a litellm failure by status and exception chain (litellm's class alone misleads:
    a 503 can arrive as BadRequestError and a refused connection as InternalServerError)."""
    names = {cls.__name__ for err in _chain(exc) for cls in type(err).__mro__}
    status = getattr(exc, "status_code", None)
    status = status if isinstance(status, int) else None
    kind = _kind(names, status, str(exc).lower(), mid_stream)
    who, where, detail = (
        model.provider,
        model.api_base or model.provider,
        _detail(exc, model.api_key),
    )
    if kind == "auth":
        var = env_var_for(who)
        fix = f"set {var} to a valid key" if var else f"check the key {where} expects"
        message = f"the key for {who} was rejected: {fix} ({detail})"
    else:
        message = _MESSAGES[kind].format(
            who=who,
            where=where,
            model=model.id,
            detail=detail,
            status=status or "overloaded",
            timeout=model.timeout_s,
            check="the server is running" if model.api_base else "your network",
        )
    return ProviderError(
        message,
        retryable=kind in _RETRYABLE_KINDS,
        status={"auth": 401, "rate_limit": 429}.get(kind, status),
        retry_after=retry_after_of(exc) if kind in ("rate_limit", "server") else None,
    )


__all__ = ["LiteLLMModel", "mask_key", "preload", "retry_after_of", "to_provider_error"]
