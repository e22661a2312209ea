"""Resolve a path the model gave into a real path inside the project root, or refuse it.

Symlinks are resolved (dangling ones too, by reading the link), so a link that points outside
the root is refused like `..` or an absolute path would be.
"""

from __future__ import annotations

import os
from pathlib import Path

from zizou.errors import PathError


def _check_text(raw: str) -> None:
    if not raw:
        raise PathError("the path is empty")
    bad = next((ch for ch in raw if ord(ch) < 32 or ord(ch) == 127), None)
    if bad is not None:
        raise PathError(f"the path contains a control character ({bad!r}); use a plain path")
    if raw.startswith("~"):
        raise PathError(f"{raw!r}: `~` is not expanded; give a path relative to the project root")


def resolve_in_root(root: Path, raw: str) -> Path:
    """The real path for `raw` (relative to `root`, or absolute), refused unless inside `root`."""
    _check_text(raw)
    real_root = Path(os.path.realpath(root))
    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = real_root / candidate
    real = Path(os.path.realpath(candidate))
    if real != real_root and not real.is_relative_to(real_root):
        raise PathError(
            f"{raw!r} resolves outside the project root ({real_root}); "
            "only paths inside the project can be used"
        )
    return real


def relative(root: Path, path: Path) -> str:
    """`path` relative to the real root, as a POSIX string (`.` for the root itself)."""
    rel = path.relative_to(Path(os.path.realpath(root)))
    text = rel.as_posix()
    return text or "."


__all__ = ["relative", "resolve_in_root"]
