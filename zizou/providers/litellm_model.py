"""The one place zizou talks to litellm: stream a chat completion under three timeouts, and
assemble the reply. Failures become ProviderErrors through providers/errors.py.

litellm is imported lazily (it takes ~2 s), with its price table read from the package instead
of the internet and its stdout banner switched off: stray stdout would corrupt the TUI. zizou
owns the retry policy (providers/retry.py), so every call goes out with litellm's and the OpenAI
SDK's retries off.

The three timeouts (config.toml `[timeouts]`): `connect_s` until the response headers arrive,
`first_token_s` from the request until the first chunk that carries content (text, a tool call,
a finish), and `idle_s` between chunks after that. The wait for the headers counts against
`first_token_s` too, so a server that accepts the connection and never answers is given up on
after the shorter of the two. A stall closes the stream and raises a retryable ProviderError
naming the timeout that ran out.

Prompt caching: Anthropic caches only what a request marks, so for Claude the system prompt's
stable prefix (`ModelRequest.stable_chars`) goes out as its own text block with `cache_control`;
every other provider gets the plain string (OpenAI caches a repeated prefix by itself). The
tokens read from and written to the cache come back in `Usage`.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from zizou.collector import paused_collector
from zizou.contracts.events import ReasoningDelta, Usage
from zizou.contracts.protocols import ModelEvent, ModelReply, ModelRequest, TextPiece, ToolCall
from zizou.errors import ProviderError
from zizou.providers.catalog import model_info, provider_of
from zizou.providers.errors import mask_key, to_provider_error
from zizou.providers.settings import TimeoutSettings

_END = object()


def _litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    with paused_collector():  # its objects live as long as the process
        import litellm

    litellm.suppress_debug_info = True
    return litellm


def preload() -> None:
    """Import litellm ahead of the first request (the TUI calls this in a background thread)."""
    _litellm()


class LiteLLMModel:
    """A Model backed by `litellm.acompletion`, streaming."""

    def __init__(
        self,
        model: str,
        api_base: str | None = None,
        api_key: str | None = None,
        timeouts: TimeoutSettings | None = None,
        extra: dict[str, Any] | None = None,  # more keyword arguments for acompletion
    ) -> None:
        self.id = model
        self.api_base = api_base
        self.api_key = api_key
        self.timeouts = timeouts or TimeoutSettings()
        self.extra = dict(extra or {})

    def __repr__(self) -> str:
        key = mask_key(self.api_key) if self.api_key else None
        return f"LiteLLMModel({self.id!r}, api_base={self.api_base!r}, api_key={key!r})"

    @property
    def provider(self) -> str:
        return provider_of(self.id)

    @property
    def timeout_s(self) -> float:
        """litellm's own timeout: a backstop a little above ours, so ours fire first."""
        t = self.timeouts
        return max(t.connect_s, t.first_token_s, t.idle_s) + 5

    @property
    def context_window(self) -> int | None:
        """Input tokens the model takes, from litellm's local model map; None when unknown."""
        info = model_info(self.id)
        return info.context_window if info else None

    @property
    def takes_images(self) -> bool:
        """Whether the model reads images (litellm's model map says so); an MCP tool's image
        is sent to it, and only named to the others."""
        info = model_info(self.id)
        return bool(info and info.vision)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        # The first import takes a second or more: off the event loop, so a timeout, the
        # screen and Ctrl+C are not held up by it.
        litellm = _litellm() if "litellm" in sys.modules else await asyncio.to_thread(_litellm)
        system = _system_message(request, _marks_cache(litellm, self.id))
        messages = [system, *request.messages]
        chunks: list[Any] = []
        response: Any = None
        deadline = asyncio.get_running_loop().time() + self.timeouts.first_token_s
        try:
            response = await self._connected(
                litellm.acompletion(**self._arguments(request, messages)), deadline
            )
            iterator = aiter(response)
            started = False
            while (chunk := await self._next_chunk(iterator, started, deadline)) is not _END:
                chunks.append(chunk)
                started = started or _has_content(chunk)
                reasoning, text = _delta_text(chunk, "reasoning_content"), _delta_text(chunk)
                if reasoning:
                    yield ReasoningDelta(reasoning)
                if text:
                    yield TextPiece(text)
        except ProviderError:
            raise
        except Exception as exc:
            if _raised_by_zizou(exc):  # a bug in reading the chunks, not the provider failing
                raise
            raise to_provider_error(exc, self, mid_stream=bool(chunks)) from exc
        finally:
            if response is not None and hasattr(response, "aclose"):
                await response.aclose()  # frees the connection on a stall or an early stop
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

    async def _connected(self, call: Any, deadline: float) -> Any:
        """The response, within `connect_s` and what is left of `first_token_s`, whichever
        runs out first (the timeout named is that one)."""
        if self.timeouts.first_token_s < self.timeouts.connect_s:
            remaining = max(0.0, deadline - asyncio.get_running_loop().time())
            return await self._within(call, "first_token", remaining)
        return await self._within(call, "connect")

    async def _next_chunk(
        self, iterator: AsyncIterator[Any], started: bool, deadline: float
    ) -> Any:
        if started:
            return await self._within(anext(iterator, _END), "idle")
        remaining = max(0.0, deadline - asyncio.get_running_loop().time())
        return await self._within(anext(iterator, _END), "first_token", remaining)

    async def _within(self, step: Any, which: str, limit: float | None = None) -> Any:
        """Await `step`, or raise a retryable ProviderError naming the timeout that ran out."""
        setting = getattr(self.timeouts, f"{which}_s")
        try:
            return await asyncio.wait_for(step, setting if limit is None else limit)
        except TimeoutError:
            what = {
                "connect": f"{self.provider} did not start answering within {setting:g} s",
                "first_token": f"{self.provider} sent no first token within {setting:g} s",
                "idle": f"the stream from {self.provider} stalled for {setting:g} s mid-reply",
            }[which]
            raise ProviderError(
                f"{what} (timeouts.{which}_s); try again, or raise timeouts.{which}_s in "
                "config.toml",
                retryable=True,
            ) from None

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
        if request.max_output_tokens is not None:  # a spending cap's room for the reply
            arguments["max_tokens"] = request.max_output_tokens
        if self.api_base:
            arguments["api_base"] = self.api_base
        if self.api_key:
            arguments["api_key"] = self.api_key
        return arguments | self.extra

    def secrets(self) -> tuple[str, ...]:
        return (self.api_key,) if self.api_key else ()

    def call_parameters(self) -> dict[str, Any]:
        """What every request is sent with, minus the messages, the tools and the key (the debug
        log reports these)."""
        request = ModelRequest(system="", messages=[], tools=[])
        arguments = self._arguments(request, [])
        for private in ("messages", "tools", "api_key"):
            arguments.pop(private, None)
        arguments["timeouts"] = self.timeouts.model_dump()
        return arguments

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
        return ModelReply(
            text=text,
            tool_calls=calls,
            usage=_usage(getattr(built, "usage", None), _cost(litellm, built, self.id)),
            finish_reason=choice.finish_reason,
        )


_PACKAGE = Path(__file__).resolve().parent.parent
_CACHE_MARK = {"type": "ephemeral"}


def _marks_cache(litellm: Any, model: str) -> bool:
    """Whether the model's litellm route carries a system block's `cache_control` to a Claude
    model: Anthropic's own API (`anthropic/...`, a bare `claude-...`), and Claude on Bedrock
    (litellm turns the mark into a `cachePoint`, and drops it for a model without caching) or
    Vertex AI (Anthropic's format). Claude through OpenRouter or a proxy is left out: whether the
    mark gets through depends on the route, and a plain string is what every provider takes."""
    try:
        provider = str(litellm.get_llm_provider(model)[1])
    except Exception:  # litellm does not know the id; zizou's own guess ("claude-..." too)
        provider = provider_of(model)
    if provider == "anthropic":
        return True
    return provider in ("bedrock", "vertex_ai") and "claude" in model.lower()


def _system_message(request: ModelRequest, cacheable: bool) -> dict[str, Any]:
    """The system message: for a provider that caches on request, the stable prefix as a text
    block marked for caching and the volatile rest as a plain one; else the plain string."""
    stable, rest = request.system_parts
    if not cacheable or not stable:
        return {"role": "system", "content": request.system}
    blocks: list[dict[str, Any]] = [{"type": "text", "text": stable, "cache_control": _CACHE_MARK}]
    if rest:
        blocks.append({"type": "text", "text": rest})
    return {"role": "system", "content": blocks}


def _count(source: Any, name: str) -> int:
    """A token count from litellm's usage object; 0 when it is missing or not a number."""
    value = getattr(source, name, None)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0
    return int(value)


def _usage(usage: Any, cost: float | None) -> Usage:
    """litellm's usage as zizou's. Anthropic's cache counts come as `cache_read_input_tokens`
    and `cache_creation_input_tokens` (litellm adds both into `prompt_tokens`); OpenAI-style
    providers report reads in `prompt_tokens_details.cached_tokens`, and writes not at all."""
    details = getattr(usage, "prompt_tokens_details", None)
    read = _count(usage, "cache_read_input_tokens") or _count(details, "cached_tokens")
    write = _count(usage, "cache_creation_input_tokens") or _count(details, "cache_creation_tokens")
    return Usage(
        input_tokens=_count(usage, "prompt_tokens"),
        output_tokens=_count(usage, "completion_tokens"),
        cost_usd=cost,
        cache_read_tokens=read,
        cache_write_tokens=write,
    )


def _raised_by_zizou(exc: BaseException) -> bool:
    """Whether the innermost frame of `exc` is zizou's own code (a bug to report as one)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and Path(tb.tb_frame.f_code.co_filename).resolve().is_relative_to(
        _PACKAGE
    )


def _has_content(chunk: Any) -> bool:
    choices = getattr(chunk, "choices", None)
    if not choices:
        return False
    delta = choices[0].delta
    return bool(
        choices[0].finish_reason
        or getattr(delta, "content", None)
        or getattr(delta, "tool_calls", None)
        or getattr(delta, "reasoning_content", None)
    )


def _delta_text(chunk: Any, field: str = "content") -> str:
    """A chunk's piece of the answer (`content`) or of the model's reasoning
    (`reasoning_content`: litellm's name for it, whichever name the provider sends it under)."""
    choices = getattr(chunk, "choices", None)
    if not choices or choices[0].delta is None:
        return ""
    piece = getattr(choices[0].delta, field, None)
    return piece if isinstance(piece, str) else ""


def _cost(litellm: Any, built: Any, model: str) -> float | None:
    try:
        return float(litellm.completion_cost(completion_response=built, model=model))
    except Exception:  # an unknown model has no price: that is not an error
        return None


__all__ = ["LiteLLMModel", "preload"]
