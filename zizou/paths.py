"""Where zizou keeps files: the user's config dir and the project's `.zizou/`.

Every user path comes from here; `ZIZOU_HOME` overrides the user config dir (tests set it).
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

PROJECT_DIR_NAME = ".zizou"
DEBUG_LOG_NAME = "zizou-debug.log"


def user_config_dir() -> Path:
    """The user's zizou config dir (config.toml, keys.toml)."""
    override = os.environ.get("ZIZOU_HOME")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir("zizou", appauthor=False))


def project_dir(root: Path) -> Path:
    """`<root>/.zizou`, created with a `.gitignore` that ignores everything in it."""
    path = root / PROJECT_DIR_NAME
    path.mkdir(parents=True, exist_ok=True)
    ignore = path / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n", encoding="utf-8")
    return path


def compiled_prompt_path(root: Path) -> Path:
    return project_dir(root) / "compiled" / "prompt.md"


def debug_log_path(root: Path) -> Path:
    return root / DEBUG_LOG_NAME


def installed_package_file(package: str, *parts: str) -> Path | None:
    """A data file shipped inside an installed package, found without importing the package
    (litellm's import costs seconds); None when the package or the file is absent."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder).joinpath(*parts)
        if path.is_file():
            return path
    return None
