"""Find what a sandboxed command must not change or read: git metadata and secret files.

The sandbox binds the project writable, then binds each `.git` read-only and masks each secret
file (`.env*`, private keys) on top. Those have to be named one by one, so this walks the
project once, never following symlinks, and skips the generated and vendored directories that
glob and grep skip too (a `.git` or `.env` inside `node_modules/` is not protected).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from zizou.secret_files import is_secret_name
from zizou.skipped_dirs import SKIPPED_DIRS

MAX_ENTRIES = 200_000  # a walk that big is cut short: the top-level entries are found first


@dataclass(frozen=True)
class ProtectedPaths:
    """Absolute paths under the project root."""

    git: tuple[Path, ...] = ()  # `.git` directories or files, bound read-only
    secrets: tuple[Path, ...] = ()  # secret files, masked


def find_protected(root: Path) -> ProtectedPaths:
    """Every `.git` and every secret file under `root`, breadth first."""
    git: list[Path] = []
    secrets: list[Path] = []
    queue = [root]
    seen = 0
    while queue and seen < MAX_ENTRIES:
        directory = queue.pop(0)
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        seen += len(listed)
        for entry in listed:
            if entry.name == ".git":
                git.append(Path(entry.path))
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    queue.append(Path(entry.path))
            elif is_secret_name(entry.name):
                secrets.append(Path(entry.path))
    return ProtectedPaths(tuple(sorted(git)), tuple(sorted(secrets)))


__all__ = ["ProtectedPaths", "find_protected"]
