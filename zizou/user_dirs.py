"""The user's own folders for zizou: its config (keys, settings) and its cache.

`ZIZOU_HOME` moves both (tests set it): the config is then that folder, the cache its `cache/`.
Kept apart from `zizou.paths`, which reaches into projects, so the app's first frame can find
its cache without loading what a project's paths need.
"""

from __future__ import annotations

import os
from pathlib import Path


def user_config_dir() -> Path:
    """The user's zizou config dir (config.toml, keys.toml)."""
    override = os.environ.get("ZIZOU_HOME")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("zizou", appauthor=False))


def user_cache_dir() -> Path:
    """zizou's cache dir: what can be made again (copy-on-write layers, parsed stylesheets)."""
    override = os.environ.get("ZIZOU_HOME")
    if override:
        return Path(override) / "cache"
    import platformdirs

    return Path(platformdirs.user_cache_dir("zizou", appauthor=False))


__all__ = ["user_cache_dir", "user_config_dir"]
