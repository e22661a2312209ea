"""Exceptions that carry an exit code and a message naming the fix.

Control flow leaves the loop and the CLI through these few named exceptions; anything else is a bug.
"""

from __future__ import annotations


class ZizouError(Exception):
    """Base class: `str(err)` is what the user sees."""

    exit_code = 1


class UsageError(ZizouError):
    """Bad flags, missing keys, bad configuration: exit 2, and the message names the fix."""

    exit_code = 2


class ProviderError(ZizouError):
    """The model provider failed in a way the loop could not recover from: exit 1.

    `retry_after` is the wait in seconds the provider asked for (a Retry-After header), if any.
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class ShorteningRefused(ProviderError):
    """The request overflowed the context window, and the turn may not shorten its history
    once more (its compaction guard): the loop stops the turn with the guard's message."""


class PathError(ZizouError):
    """A path a tool was given is unsafe or outside the project root."""


__all__ = ["PathError", "ProviderError", "ShorteningRefused", "UsageError", "ZizouError"]
