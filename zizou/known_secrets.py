"""The key values this process holds, so every redactor masks them wherever they turn up.

Kept apart from `zizou.redact` (whose credential patterns take a few milliseconds to compile)
because key capture records values first thing at start-up, before the app's first frame.
"""

from __future__ import annotations

import threading

_loaded: dict[str, None] = {}  # insertion-ordered set of every key value this process loaded
_loaded_lock = threading.Lock()


def remember_secret(value: str) -> None:
    """Record a key value zizou resolved or saved, so every redactor masks it from now on."""
    with _loaded_lock:
        _loaded[value] = None


def loaded_secrets() -> tuple[str, ...]:
    """Every key value this process has resolved or saved, for exact-value redaction."""
    with _loaded_lock:
        return tuple(_loaded)


__all__ = ["loaded_secrets", "remember_secret"]
