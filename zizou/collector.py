"""How zizou runs Python's cyclic collector: less often than Python's defaults, and not at all
while a burst of long-lived objects is made.

At Python's thresholds (700, 10, 10) the collections run while the app's modules are imported
cost its first frame about 20 ms, and full collections of litellm's objects froze the screen
mid-answer (`zizou.ui.opening` says what the app does about those); every command starts with
the thresholds below.

Importing litellm makes hundreds of thousands of objects (its modules, classes and tables) that
live as long as the process, and the collector walked them again and again while they were
made: a fifth of the import's time (2.9 s against 2.2 s with the collector off, on the
development machine). So it is imported with the collector paused, and what it made goes
straight to the oldest generation afterwards; so is a render of the repo map, whose cache and
graph are hundreds of thousands of tuples that live as long as the map.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

GC_THRESHOLDS = (10_000, 50, 100)  # Python's defaults are (700, 10, 10)
_frozen = False  # whether zizou froze objects (`freeze`): then a pause leaves them frozen


def collect_less_often() -> None:
    gc.set_threshold(*GC_THRESHOLDS)


def freeze() -> None:
    """Never scan what exists now again (`gc.freeze`). Through here, not `gc.freeze`, so that a
    pause knows without asking Python: `gc.get_freeze_count` walks every frozen object (on 3.11),
    12-95 ms in the app, at every agent step."""
    global _frozen
    gc.freeze()
    _frozen = True


def unfreeze() -> None:
    """Scan everything again from the next full collection (`gc.unfreeze`)."""
    global _frozen
    gc.unfreeze()
    _frozen = False


@contextmanager
def paused_collector() -> Iterator[None]:
    """The collector off for the block, and what the block made moved to the oldest generation
    (freeze, then unfreeze: two list splices) rather than walked by the young collection the
    first allocation after `gc.enable` would start. Not when zizou froze objects (`freeze`):
    unfreezing would undo that. Left off if it was off before."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not _frozen:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


__all__ = ["GC_THRESHOLDS", "collect_less_often", "freeze", "paused_collector", "unfreeze"]
