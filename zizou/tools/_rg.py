"""Find the ripgrep binary that grep runs.

zizou depends on the `ripgrep` wheel, which installs `rg` beside the Python interpreter; looking
there first means the pinned binary wins over whatever `rg` is on PATH.
"""

from __future__ import annotations

import functools
import os
import shutil
import sys
import sysconfig
from pathlib import Path

RG_MISSING = (
    "ripgrep (rg) was not found: reinstall zizou (it depends on ripgrep==14.1.0) "
    "or put an `rg` binary on PATH"
)


def find_rg() -> str | None:
    """The path of the `rg` to run, or None when there is none."""
    for candidate in _pinned_places():
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which("rg")


@functools.cache
def _pinned_places() -> tuple[Path, ...]:
    """Where the wheel's `rg` would be (working out the scripts folder takes longer than a
    search of a small project, so it is worked out once)."""
    exe = "rg.exe" if sys.platform == "win32" else "rg"
    return (Path(sys.executable).parent / exe, Path(sysconfig.get_path("scripts")) / exe)


__all__ = ["RG_MISSING", "find_rg"]
