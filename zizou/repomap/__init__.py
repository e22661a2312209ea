"""The repo map: the project's most relevant definitions, ranked and fitted to a token budget.

    from zizou.repomap import MapRequest, repo_map_for
    result = repo_map_for(root).render(MapRequest(max_tokens=1024, focus=("src/app.py",)))
    result.text, result.stats

`repo_map_for` keeps one warm RepoMap per project in this process, so the prompt (which renders
the map at every step) and the repo_map tool share parsed tags.
"""

from __future__ import annotations

import threading
from pathlib import Path

from zizou.repomap.mapper import RepoMap
from zizou.repomap.request import DEFAULT_MAP_TOKENS, MapRequest, MapResult, MapStats

_shared: dict[Path, RepoMap] = {}
_shared_lock = threading.Lock()


def repo_map_for(root: Path) -> RepoMap:
    """The process-wide RepoMap of the project at `root`."""
    key = root.resolve()
    with _shared_lock:
        if key not in _shared:
            _shared[key] = RepoMap(key)
        return _shared[key]


__all__ = [
    "DEFAULT_MAP_TOKENS",
    "MapRequest",
    "MapResult",
    "MapStats",
    "RepoMap",
    "repo_map_for",
]
