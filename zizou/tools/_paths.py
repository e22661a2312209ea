"""Resolve a path the model gave into a real path inside the project root, or refuse it.

The tools' name for `zizou.confined.resolve`: strict, component by component, symlinks expanded
and kept inside the root, loops refused. Read and write the result with the fd functions of
`zizou.confined`, so that a path swapped after this check still cannot lead outside.
"""

from __future__ import annotations

from pathlib import Path

from zizou.confined import real_root
from zizou.confined import resolve as resolve_in_root


def relative(root: Path, path: Path) -> str:
    """`path` relative to the real root, as a POSIX string (`.` for the root itself)."""
    text = path.relative_to(real_root(root)).as_posix()
    return text or "."


__all__ = ["relative", "resolve_in_root"]
