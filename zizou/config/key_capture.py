"""Moving the API key variables out of the environment, first thing at start-up (the why is in
`zizou.config.keys`). Kept apart from the key stores and the resolver, whose imports (the key
file, the user's directories, the key checks) the start-up path does not need: every command
runs this before anything else, the full-screen app before its first frame."""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from pathlib import Path

from zizou.known_secrets import remember_secret

_KEY_VARIABLE = re.compile(r"[A-Z0-9_]+_API_KEY")
MIN_CAPTURED_CHARS = 8  # shorter values are not real keys; redacting them would erase words
PR_SET_DUMPABLE = 4
_captured: dict[str, str] = {}


class _KeyEnviron(Mapping[str, str]):
    """The key variables captured at start-up, over the live `os.environ`."""

    def __getitem__(self, name: str) -> str:
        return _captured[name] if name in _captured else os.environ[name]

    def __iter__(self) -> Iterator[str]:
        yield from _captured
        yield from (name for name in os.environ if name not in _captured)

    def __len__(self) -> int:
        return len(_captured) + sum(1 for name in os.environ if name not in _captured)


KEY_ENVIRON: Mapping[str, str] = _KeyEnviron()


def key_environ() -> Mapping[str, str]:
    """The environment the resolver reads keys from: the captured key variables, then the rest
    of `os.environ`."""
    return KEY_ENVIRON


def is_key_variable(name: str) -> bool:
    """`NAME_API_KEY`: every provider's key variable in the catalog is named so (a test holds
    the catalog to it), and so is any other service's a user may export. The catalog itself is
    not read here: the app's first frame would wait for it."""
    return _KEY_VARIABLE.fullmatch(name) is not None


def take_key_variables(environ: MutableMapping[str, str]) -> tuple[str, ...]:
    """Move the key variables out of `environ` into the resolver's memory; their names."""
    names = tuple(name for name in environ if is_key_variable(name))
    for name in names:
        value = environ.pop(name)
        _captured[name] = value
        if len(value.strip()) >= MIN_CAPTURED_CHARS:
            remember_secret(value.strip())  # it is in memory now: redact it wherever it turns up
    return names


def capture_key_environment() -> tuple[str, ...]:
    """Run first thing at start-up (see the module docstring); the names of the variables moved.
    What fails on this platform is skipped silently."""
    names = take_key_variables(os.environ)
    if sys.platform.startswith("linux"):
        _blank_start_environment({os.fsencode(name) for name in names})
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    return names


def _blank_start_environment(names: set[bytes]) -> None:
    """Zero the `NAME=value` entries of `names` in the block `/proc/self/environ` reads (from
    `env_start` to `env_end`, fields 50 and 51 of `/proc/self/stat`), after checking that the
    memory there is exactly that block."""
    if not names:
        return
    try:
        stat = Path("/proc/self/stat").read_bytes()
        fields = stat[stat.rindex(b")") + 2 :].split()  # the fields after "(comm)"
        start, end = int(fields[47]), int(fields[48])
        block = Path("/proc/self/environ").read_bytes()
    except (OSError, ValueError, IndexError):
        return
    if start <= 0 or end - start != len(block) or ctypes.string_at(start, len(block)) != block:
        return
    offset = 0
    for entry in block.split(b"\0"):
        if entry.partition(b"=")[0] in names:
            ctypes.memset(start + offset, 0, len(entry))
        offset += len(entry) + 1


__all__ = [
    "KEY_ENVIRON",
    "MIN_CAPTURED_CHARS",
    "capture_key_environment",
    "is_key_variable",
    "key_environ",
    "take_key_variables",
]
