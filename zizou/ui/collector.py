"""How often the app's garbage collector runs: the thresholds the app sets from the start of its
path, before Textual is imported, and keeps (`zizou.ui.opening` says why). Nothing here imports
Textual, so the launcher can set them first."""

from __future__ import annotations

import gc

GC_THRESHOLDS = (10_000, 50, 100)  # Python's defaults are (700, 10, 10)


def collect_less_often() -> None:
    gc.set_threshold(*GC_THRESHOLDS)


__all__ = ["GC_THRESHOLDS", "collect_less_often"]
