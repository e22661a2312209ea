"""Turn litellm's exceptions into ProviderErrors that name the cause and the fix, and say whether
trying again could help. The retry layer (retry.py) acts only on what this module decides.

litellm's exception class alone misleads (a 503 can arrive as BadRequestError, a refused
connection as InternalServerError, an Anthropic 529 as a 500), so the status, the whole exception
chain and the message text are read together. Nothing here imports litellm.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import ClassVar, Protocol

from zizou.errors import ProviderError
from zizou.providers.catalog import env_var_for

MIN_KEY_CHARS = 8  # shorter values are not keys; masking them would garble ordinary text
_KEYLIKE = re.compile(r"\b(sk-|sk_|gsk_|AIza)[\w\-]{12,}")
_NOISE = re.compile(r"^(?:[\w.]+:\s|\w+Exception - )+")  # "litellm.XError: OpenAIException - "
_TIMEOUTS = {"Timeout", "APITimeoutError", "TimeoutException", "TimeoutError"}
_CONNECTION = {"APIConnectionError", "ConnectError", "ConnectionError", "MidStreamFallbackError"}
_ANSWERED = {"APIStatusError", "HTTPStatusError"}  # an HTTP response is in the chain
_TRANSIENT_STATUS = {408, 409, 425}
_WINDOW = (  # how providers state a context window in their overflow errors
    re.compile(r"maximum context length is (\d[\d,]*)"),
    re.compile(r"\d[\d,]* tokens? > (\d[\d,]*)"),
    re.compile(r"context (?:window|length) (?:of|is) (\d[\d,]*)"),
)


class CalledModel(Protocol):
    """What the classifier needs to know about the model that was called."""

    @property
    def id(self) -> str: ...
    @property
    def provider(self) -> str: ...
    @property
    def api_base(self) -> str | None: ...
    @property
    def api_key(self) -> str | None: ...
    @property
    def timeout_s(self) -> float: ...
    @property
    def context_window(self) -> int | None: ...


class ContextOverflowError(ProviderError):
    """The request does not fit the model's context window. Sending it again as it is cannot
    help; the retry layer shortens it once (core/compaction.py) and tries again."""

    def __init__(self, message: str, *, context_window: int | None = None) -> None:
        super().__init__(message, retryable=False, status=400)
        self.context_window = context_window


class UnknownModelAnswer(ProviderError):
    """The provider answered that it has no such model: the id is wrong, which is a usage error
    (exit code 2), and trying again cannot help."""

    kind: ClassVar[str] = "unknown_model"
    exit_code = 2


def mask_key(key: str) -> str:
    return "****" if len(key) < 12 else f"{key[:3]}...{key[-4:]}"


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
    if api_key and len(api_key.strip()) >= MIN_KEY_CHARS:  # "x" is no key: never mask every x
        text = text.replace(api_key, mask_key(api_key))
    text = _KEYLIKE.sub(lambda m: m.group(1) + "****", text)
    return text if len(text) <= 300 else text[:297] + "..."


def retry_after_of(exc: BaseException) -> float | None:
    """Seconds from a Retry-After(-ms) header on the response of the error or of any error in
    its chain (litellm re-raises some statuses without the response), if there is one."""
    for source in (
        headers
        for err in _chain(exc)
        for headers in (
            getattr(err, "litellm_response_headers", None),
            getattr(getattr(err, "response", None), "headers", None),
            getattr(err, "headers", None),
        )
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


def context_window_in(text: str) -> int | None:
    """The context window an overflow error states ("maximum context length is 128000")."""
    for pattern in _WINDOW:
        found = pattern.search(text)
        if found:
            return int(found.group(1).replace(",", ""))
    return None


# Each message is "cause; fix (detail)": the retry layer quotes the cause before the ";".
_MESSAGES = {
    "context": "the conversation is too long for {model}'s context window; start a new session "
    "or unpin files ({detail})",
    "policy": "{who} refused the request under its content policy; rephrase it ({detail})",
    "timeout": "{who} did not answer within {timeout:g} s; try again, or check {where}",
    "forbidden": "{who} refused access to {model}; check your key may use it ({detail})",
    "rate_limit": "rate limited by {who}{code}; wait, or check your plan's limits ({detail})",
    "broken": "the stream from {who} broke off before it finished; try again ({detail})",
    "unreachable": "could not reach {where}; check {check} ({detail})",
    "overloaded": "{who} is overloaded{code}; try again shortly ({detail})",
    "server": "{who} failed on its side{code}; try again shortly ({detail})",
    "transient": "{who} could not take the request just now{code}; try again ({detail})",
    "not_found": "{who} does not know the model {model!r}; check the model id ({detail})",
    "unknown_model": "{who} has no model {model}{fix} ({detail})",
    "rejected": "{who} rejected the request{code}: {detail}",
    "unknown": "calling {model} failed: {detail}",
}
_RETRYABLE_KINDS = {
    "timeout",
    "rate_limit",
    "broken",
    "unreachable",
    "overloaded",
    "server",
    "transient",
}


def _kind(names: set[str], status: int | None, text: str, mid_stream: bool) -> str:
    if "ContextWindowExceededError" in names:
        return "context"
    if "ContentPolicyViolationError" in names:
        return "policy"
    timed_out = names & _TIMEOUTS or "timeout on reading" in text or "timed out" in text
    if timed_out and not names & _ANSWERED:  # a 504 or 408 the server sent goes by its status
        return "timeout"
    if status == 401 or "AuthenticationError" in names:
        return "auth"
    if status == 403 or "PermissionDeniedError" in names:
        return "forbidden"
    if status == 429 or "RateLimitError" in names:
        return "rate_limit"
    if names & _CONNECTION:
        return "broken" if mid_stream else "unreachable"
    if status == 529 or "overloaded" in text:
        return "overloaded"
    if (status or 0) >= 500:
        return "server"
    if status in _TRANSIENT_STATUS:
        return "transient"
    if status == 404 or "NotFoundError" in names:
        return "unknown_model" if "model" in text else "not_found"
    return "rejected" if status is not None and 400 <= status < 500 else "unknown"


def rejected_key_message(provider: str, where: str, detail: str) -> str:
    var = env_var_for(provider)
    if var is None:
        return f"the key for {provider} was rejected; check the key {where} expects ({detail})"
    return (
        f"the key for {provider} was rejected; run `zizou keys set {provider}` "
        f"or set {var} to a valid key ({detail})"
    )


def to_provider_error(
    exc: BaseException, model: CalledModel, *, mid_stream: bool = False
) -> ProviderError:
    """Classify a litellm failure by status, exception chain and message text."""
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
        return ProviderError(rejected_key_message(who, where, detail), status=401)
    message = _MESSAGES[kind].format(
        who=who,
        where=where,
        model=model.id,
        detail=detail,
        code=f" ({status})" if status else "",
        timeout=model.timeout_s,
        check="the server is running" if model.api_base else "your network",
        fix=_model_fix(model) if kind == "unknown_model" else "",
    )
    if kind == "context":
        window = context_window_in(str(exc)) or model.context_window
        return ContextOverflowError(message, context_window=window)
    if kind == "unknown_model":
        return UnknownModelAnswer(message, status=status)
    return ProviderError(
        message,
        retryable=kind in _RETRYABLE_KINDS,
        status={"rate_limit": 429}.get(kind, status),
        retry_after=retry_after_of(exc) if kind in _RETRYABLE_KINDS else None,
    )


def _model_fix(model: CalledModel) -> str:
    """How to find the right id: the server's own list, or the nearest id litellm lists for the
    provider and `zizou models`."""
    if model.api_base:
        return f"; check the id against the models {model.api_base} serves"
    from zizou.providers.model_ids import chat_models, closest

    provider, _, name = model.id.partition("/")
    known = {m.partition("/")[2]: m for m in chat_models(provider)}
    close = closest(name, known) if name else None
    hint = f": did you mean {close}?" if close else ";"
    return f"{hint} `zizou models {provider}` lists the ids litellm knows"


__all__ = [
    "MIN_KEY_CHARS",
    "CalledModel",
    "ContextOverflowError",
    "UnknownModelAnswer",
    "context_window_in",
    "mask_key",
    "rejected_key_message",
    "retry_after_of",
    "to_provider_error",
]
