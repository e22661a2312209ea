"""The repo map: the project's most relevant definitions, ranked and fitted to a token budget.

    from zizou.repomap import MapRequest, repo_map_for
    result = repo_map_for(root).render(MapRequest(max_tokens=1024, focus=("src/app.py",)))
    result.text, result.stats

`repo_map_for` keeps one warm RepoMap per project in this process, so the prompt (which renders
the map at every step) and the repo_map tool share parsed tags. The mapper (parsing, caching,
ranking and what they import) loads on first use: a module that only needs a piece of the map
(its request types, `repomap.tags.LANGUAGES`) does not pay for it, nor does the app's first
frame.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.repomap.request import DEFAULT_MAP_TOKENS, MapRequest, MapResult, MapStats

if TYPE_CHECKING:
    from zizou.repomap.mapper import RepoMap

_shared: dict[Path, RepoMap] = {}
_shared_lock = threading.Lock()


def repo_map_for(root: Path) -> RepoMap:
    """The process-wide RepoMap of the project at `root`."""
    key = root.resolve()
    with _shared_lock:
        if key not in _shared:
            from zizou.repomap.mapper import RepoMap

            _shared[key] = RepoMap(key)
        return _shared[key]


def __getattr__(name: str) -> Any:
    if name == "RepoMap":
        from zizou.repomap.mapper import RepoMap

        return RepoMap
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_MAP_TOKENS",
    "MapRequest",
    "MapResult",
    "MapStats",
    "RepoMap",
    "repo_map_for",
]
