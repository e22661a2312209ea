"""Keeps the files zizou writes in a project out of git commits.

`zizou-debug.log` and `zizou-debug.PID.log` (full transcripts, redacted but still private) and
`.zizou/` (sessions, the compiled prompt) must never be committed by accident, so when the
project is a git repository they are listed in its `.git/info/exclude`: local to the clone, no
change to tracked files. The path comes from `git rev-parse --git-path info/exclude` (run
through `zizou.git`, so only a repository the user opened counts), which is right for linked
worktrees and submodules, where `.git` is a file. The patterns carry no leading slash, so they
also match when zizou runs in a subdirectory of the repository.
"""

from __future__ import annotations

import os
from pathlib import Path

from zizou.git import run_git
from zizou.paths import DEBUG_LOG_NAME, OWN_DEBUG_LOG_NAME, PROJECT_DIR_NAME

PATTERNS = (DEBUG_LOG_NAME, OWN_DEBUG_LOG_NAME, f"{PROJECT_DIR_NAME}/")
COMMENT = "# files zizou writes in the project (added by zizou)"
GIT_TIMEOUT_S = 5.0


def exclude_file(root: Path) -> Path | None:
    """The repository's info/exclude file, or None when `root` is not in a git work tree."""
    result = run_git(
        root,
        ["rev-parse", "--git-path", "info/exclude"],
        timeout=GIT_TIMEOUT_S,
        reads_contents=False,
    )
    if result is None:
        return None  # outside git, no git on PATH, or it hung: nothing to protect from commits
    path = result.stdout.decode("utf-8", "surrogateescape").strip()
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
    if path.is_symlink() or path.parent.is_symlink():
        return []  # a planted link would aim our append at some other file
    try:
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        present = {line.strip() for line in text.splitlines()}
        missing = [p for p in PATTERNS if p not in present]
        if not missing:
            return []
        path.parent.mkdir(parents=True, exist_ok=True)
        lead = "" if not text or text.endswith("\n") else "\n"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(path, flags, 0o644), "a", encoding="utf-8") as file:
            file.write(lead + "\n".join([COMMENT, *missing]) + "\n")
    except (OSError, UnicodeDecodeError):
        return []
    return missing


__all__ = ["PATTERNS", "ensure_excluded", "exclude_file"]
