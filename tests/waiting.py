"""Waiting on a condition instead of the clock: poll until it holds, and fail past a deadline.

The deadline is generous (a loaded machine is slow, not wrong); the poll is short, so a test
waits only as long as the condition takes. Every time limit inside the tests comes from
`scaled`: ZIZOU_TEST_TIMEOUT_SCALE (a number) makes them all that many times longer; unset (or
`auto`), they follow the machine's load as each limit is set (1 + the load average per CPU), so a
machine busy with other work makes them longer instead of failing the tests. `exclusive` holds
a lock on a fixed path, for the rare test whose output must name a fixed path, so parallel runs
(pytest-xdist workers, or two checkouts tested at once) take turns with that path instead of
trampling each other.
"""

from __future__ import annotations

import asyncio
import fcntl
import os
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

SCALE_VARIABLE = "ZIZOU_TEST_TIMEOUT_SCALE"
EVERY_S = 0.01


def timeout_scale() -> float:
    """How many times longer than written every time limit of the tests is (at least 1)."""
    chosen = os.environ.get(SCALE_VARIABLE, "auto").strip() or "auto"
    if chosen == "auto":
        return max(1.0, 1 + os.getloadavg()[0] / (os.cpu_count() or 1))
    try:
        scale = float(chosen)
    except ValueError:
        raise ValueError(f"{SCALE_VARIABLE} must be a number, such as 2, or auto") from None
    return max(1.0, scale)


def scaled(seconds: float) -> float:
    """A time limit of the tests, `seconds` on a machine of ordinary speed."""
    return seconds * timeout_scale()


LIMIT_S = 30.0


def wait_until(
    check: Callable[[], object], what: str, limit_s: float = LIMIT_S, every_s: float = EVERY_S
) -> None:
    """Block until `check()` is true; AssertionError naming `what` after `limit_s` (scaled)."""
    limit_s = scaled(limit_s)
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {limit_s:g} s for {what}")
        time.sleep(every_s)


async def until(
    check: Callable[[], object], what: str, limit_s: float = LIMIT_S, every_s: float = EVERY_S
) -> None:
    """`wait_until` for async tests: the event loop runs on between the checks."""
    limit_s = scaled(limit_s)
    deadline = time.monotonic() + limit_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {limit_s:g} s for {what}")
        await asyncio.sleep(every_s)


async def within(awaitable: Awaitable[object], what: str, limit_s: float = LIMIT_S) -> None:
    """Await `awaitable` (an event's wait(), a task), failing with `what` after `limit_s`
    (scaled)."""
    limit_s = scaled(limit_s)
    try:
        await asyncio.wait_for(awaitable, limit_s)
    except TimeoutError:
        raise AssertionError(f"waited {limit_s:g} s for {what}") from None


def running_process(argv: bytes) -> int | None:
    """The pid of a process whose command line holds `argv` (its arguments NUL-separated, as
    /proc shows them), if one runs: that a command runs, where its files do not show it yet (a
    command in its copy-on-write layer writes to the project only when it ends)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if argv in (entry / "cmdline").read_bytes():
                    return int(entry.name)
            except OSError:
                continue
    return None


def unique_sleep(seconds: int = 600) -> tuple[str, bytes]:
    """A `sleep` no other process runs (its duration has a random fraction: the same tests may
    run at once elsewhere on the machine), and its command line for `running_process`."""
    duration = f"{seconds}.{random.randrange(10**8, 10**9)}"
    return f"sleep {duration}", f"sleep\0{duration}\0".encode()


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on `path` (created if missing) for the `with` block."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
