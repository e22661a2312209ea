"""A one-line summary of the project's git state for the SESSION CONTEXT layer."""

from __future__ import annotations

import subprocess
from pathlib import Path

MAX_NAMED = 8


def git_summary(root: Path) -> str:
    try:
        proc = subprocess.run(
            ["git", "status", "--porcelain=v1", "--branch", "--untracked-files=normal"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "not available"
    if proc.returncode != 0:
        return "not a git repository"
    lines = proc.stdout.splitlines()
    branch = lines[0][3:] if lines and lines[0].startswith("## ") else "unknown branch"
    changes = [line for line in lines[1:] if line.strip()]
    if not changes:
        return f"branch {branch}; working tree clean"
    named = ", ".join(line[3:] for line in changes[:MAX_NAMED])
    more = f" and {len(changes) - MAX_NAMED} more" if len(changes) > MAX_NAMED else ""
    return f"branch {branch}; {len(changes)} changed or untracked: {named}{more}"
