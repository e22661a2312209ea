"""Directories that zizou's listings skip: version control, generated and vendored trees.

One set for every walk that must agree: glob, grep and list_dir (`tools/_ignore.py`), and the
sandbox's search for what to protect, which finds `.git` itself and skips the rest.
"""

from __future__ import annotations

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        "build",
        "dist",
        "target",
        ".next",
        ".cache",
        "htmlcov",
        ".zizou",
    }
)

__all__ = ["SKIPPED_DIRS"]
