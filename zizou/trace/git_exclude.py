"""Keeps the files zizou writes in a project out of git commits.

`zizou-debug.log` (a full transcript, redacted but still private) and `.zizou/` (sessions, the
compiled prompt) must never be committed by accident, so when the project is a git repository
they are listed in its `.git/info/exclude`: local to the clone, no change to tracked files. The
path comes from `git rev-parse --git-path info/exclude`, which is right for linked worktrees and
submodules, where `.git` is a file. The patterns carry no leading slash, so they also match when
zizou runs in a subdirectory of the repository.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from zizou.paths import DEBUG_LOG_NAME, PROJECT_DIR_NAME

PATTERNS = (DEBUG_LOG_NAME, f"{PROJECT_DIR_NAME}/")
COMMENT = "# files zizou writes in the project (added by zizou)"
GIT_TIMEOUT_S = 5


def _in_git_repo(root: Path) -> bool:
    """A cheap look for `.git` upwards, so a project outside git costs no subprocess."""
    return any((directory / ".git").exists() for directory in (root, *root.parents))


def exclude_file(root: Path) -> Path | None:
    """The repository's info/exclude file, or None when `root` is not in a git work tree."""
    if not _in_git_repo(root):
        return None
    try:
        result = subprocess.run(
            ["git", "rev-parse", "--git-path", "info/exclude"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None  # no git on PATH, or it hung: nothing to protect us from committing
    path = result.stdout.strip()
    if result.returncode != 0 or not path:
        return None
    return root / path  # relative paths are relative to cwd; absolute ones stay as they are


def ensure_excluded(root: Path) -> list[str]:
    """Add the missing patterns to the repository's info/exclude; returns those added.

    Idempotent, and silent on failure: a read-only repository must not stop the agent.
    """
    path = exclude_file(root)
    if path is None:
        return []
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        present = {line.strip() for line in text.splitlines()}
        missing = [p for p in PATTERNS if p not in present]
        if not missing:
            return []
        path.parent.mkdir(parents=True, exist_ok=True)
        lead = "" if not text or text.endswith("\n") else "\n"
        with path.open("a", encoding="utf-8") as file:
            file.write(lead + "\n".join([COMMENT, *missing]) + "\n")
    except (OSError, UnicodeDecodeError):
        return []
    return missing


__all__ = ["PATTERNS", "ensure_excluded", "exclude_file"]
