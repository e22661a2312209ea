"""zizou's one retry layer: wraps any Model and retries what trying again can fix.

litellm's and the OpenAI SDK's own retries are off (FACTS.md), so this is the whole policy:
- a ProviderError marked retryable (408, 409, 425, 429, 5xx, 529/overloaded, connection errors,
  timeouts, streams that broke or ended early; see providers/errors.py) is retried, up to
  `max_attempts` attempts in all; anything else (400, 401, 403, 404, 413, 422, content policy)
  is raised at once;
- the wait is exponential backoff with full jitter, `uniform(0, min(max_delay_s,
  base_delay_s * 2**(attempt-1)))`, unless the provider sent Retry-After: then that, when it is
  at most `max_retry_after_s`; a longer one stops at once and says when to try again;
- a context overflow is not resent as it is: the request is shortened once (core/compaction.py)
  and sent again; a second overflow stops with the token counts, and so does the first when the
  request may not be shortened (`may_shorten`: the turn's compaction guard, core/guards.py);
- before each new attempt it yields a Retrying event, then waits in a cancellable sleep.

Text pieces from a failed attempt were already yielded; the Retrying event tells the front end to
discard them. Tool calls only ever come in the final ModelReply of an attempt that completed, so
a broken stream never gets a tool run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from zizou.contracts.compaction import compact, estimate_tokens
from zizou.contracts.events import Retrying
from zizou.contracts.protocols import Model, ModelEvent, ModelRequest
from zizou.errors import ProviderError, ShorteningRefused
from zizou.providers.catalog import provider_of
from zizou.providers.errors import ContextOverflowError
from zizou.providers.settings import RetrySettings

COMPACT_TARGET = 0.6  # aim the shortened request at this share of the window (a rough estimate)


Plan = tuple[ModelRequest, float, str]  # the next request, the wait before it, and why


def _seconds(delay: float) -> str:
    """12 s, 2.5 s, 0.05 s: precise enough to read, never 0.00073."""
    return f"{round(delay)}" if delay >= 10 else f"{delay:.2f}".rstrip("0").rstrip(".")


def _cause(err: ProviderError) -> str:
    """The cause part of an error message ("cause; fix (detail)")."""
    return str(err).split(";")[0].strip()


def _error(message: str, like: ProviderError, *, retryable: bool | None = None) -> ProviderError:
    return ProviderError(
        message,
        retryable=like.retryable if retryable is None else retryable,
        status=like.status,
        retry_after=like.retry_after,
    )


class RetryingModel:
    """A Model that retries `inner` under `policy`. `sleep`, `rand` and `now` are injectable so
    tests run without waiting and with known jitter."""

    def __init__(
        self,
        inner: Model,
        policy: RetrySettings | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        rand: Callable[[], float] = random.random,
        now: Callable[[], datetime] = datetime.now,
    ) -> None:
        self.inner = inner
        self.id = inner.id
        self.policy = policy or RetrySettings()
        self._sleep = sleep
        self._rand = rand
        self._now = now

    def __repr__(self) -> str:
        return f"RetryingModel({self.inner!r})"

    @property
    def context_window(self) -> int | None:
        """The inner model's context window in tokens, when it knows it."""
        window = getattr(self.inner, "context_window", None)
        return window if isinstance(window, int) else None

    @property
    def takes_images(self) -> bool:
        """Whether the inner model reads images (see zizou.contracts.images)."""
        return bool(getattr(self.inner, "takes_images", False))

    def call_parameters(self) -> dict[str, Any]:
        """The inner model's call parameters, plus this retry policy (for the debug log)."""
        return {**self.inner.call_parameters(), "retry": self.policy.model_dump()}

    def secrets(self) -> tuple[str, ...]:
        return self.inner.secrets()

    @property
    def provider(self) -> str:
        """The name used in messages: the inner model's provider."""
        return provider_of(self.inner.id)

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        attempt, compacted = 1, False
        while True:
            events = self.inner.stream(request)
            try:
                async for event in events:
                    yield event
                return
            except ProviderError as err:
                failure = err
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()  # frees the connection when the consumer stops early
            plan = self._plan(failure, attempt, request, compacted)
            if plan is failure:
                raise failure
            if isinstance(plan, ProviderError):
                raise plan from failure
            request, delay, reason = plan
            overflow = isinstance(failure, ContextOverflowError)
            compacted = compacted or overflow
            attempt += 1
            resent = tuple(request.messages) if overflow else None
            yield Retrying(attempt, delay, reason, resent_messages=resent)
            if delay > 0:
                await self._sleep(delay)  # a cancel here propagates: nothing more is sent

    def _plan(
        self, err: ProviderError, attempt: int, request: ModelRequest, compacted: bool
    ) -> Plan | ProviderError:
        """What follows a failed attempt: another one, or the error that ends the stream."""
        if isinstance(err, ContextOverflowError) and not request.may_shorten:
            return ShorteningRefused(str(err), status=err.status)
        if isinstance(err, ContextOverflowError):
            shorter = self._compacted(request, err, again=compacted)
            if isinstance(shorter, ProviderError):
                return shorter
            request, delay = shorter, 0.0
            cause = f"{_cause(err)}; dropped older tool outputs and turns"
        else:
            wait = self._delay(err, attempt)
            if isinstance(wait, ProviderError):
                return wait
            delay, cause = wait, _cause(err)
        if attempt >= self.policy.max_attempts:
            attempts = f"{attempt} attempt{'s' * (attempt != 1)}"
            return _error(f"gave up after {attempts}: {err}", err)
        next_try = f"(attempt {attempt + 1} of {self.policy.max_attempts})"
        when = "now" if delay < 0.005 else f"in {_seconds(delay)} s"
        return request, delay, f"{cause}, retrying {when} {next_try}"

    def _delay(self, err: ProviderError, attempt: int) -> float | ProviderError:
        """The wait before the next attempt, or the error to stop with."""
        if not err.retryable:
            return _error(f"{err} (after {attempt} attempts)", err) if attempt > 1 else err
        if err.retry_after is None:
            ceiling = self.policy.base_delay_s * 2.0 ** (attempt - 1)
            return self._rand() * min(self.policy.max_delay_s, ceiling)
        if err.retry_after <= self.policy.max_retry_after_s:
            return float(err.retry_after)
        code = f" ({err.status})" if err.status else ""
        when = self._now() + timedelta(seconds=err.retry_after + 59)  # rounded up to a minute
        fmt = "%H:%M" if err.retry_after < 12 * 3600 else "%Y-%m-%d %H:%M"
        return _error(
            f"{self.provider} asked to wait {_seconds(err.retry_after)} s{code}; "
            f"try again after {when:{fmt}}",
            err,
            retryable=False,
        )

    def _compacted(
        self, request: ModelRequest, err: ContextOverflowError, *, again: bool
    ) -> ModelRequest | ProviderError:
        """The request with older history dropped, or the error with the token counts."""
        total = estimate_tokens([request.system, request.messages, request.tools])
        window = err.context_window
        holds = f"holds {window:,}" if window else "is unknown"
        counts = f"about {total:,} tokens, and the context window of {self.id} {holds}"
        fix = "start a new session, or unpin files"
        if again:
            return _error(
                f"the request is still too long after dropping older tool outputs and turns: "
                f"{counts}; {fix}",
                err,
            )
        budget = None
        if window:
            fixed = total - estimate_tokens(request.messages)
            budget = max(0, min(int(window * COMPACT_TARGET), total * 3 // 4) - fixed)
        shorter = compact(request.messages, budget)
        if shorter is None:
            return _error(
                f"the request is too long: {counts}; nothing older can be dropped: {fix}", err
            )
        return dataclasses.replace(request, messages=shorter)


__all__ = ["RetryingModel"]
