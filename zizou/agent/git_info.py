"""A one-line summary of the project's git state for the SESSION CONTEXT layer.

git runs through `zizou.git`, so a repository planted in the project runs nothing; submodules
are compared by their commit only (`--ignore-submodules=dirty`), so no `git status` is started
inside one under its own config.
"""

from __future__ import annotations

from pathlib import Path

from zizou.git import find_repository, run_git

MAX_NAMED = 8
STATUS_TIMEOUT_S = 5.0
STATUS = ("status", "--porcelain=v1", "--branch", "--untracked-files=normal")


def git_summary(root: Path) -> str:
    if find_repository(root) is None:
        return "not a git repository"
    proc = run_git(root, [*STATUS, "--ignore-submodules=dirty"], timeout=STATUS_TIMEOUT_S)
    if proc is None or proc.returncode != 0:
        return "not available"  # no git on PATH, a timeout, or a repository git cannot read
    lines = proc.stdout.decode("utf-8", "replace").splitlines()
    branch = lines[0][3:] if lines and lines[0].startswith("## ") else "unknown branch"
    changes = [line for line in lines[1:] if line.strip()]
    if not changes:
        return f"branch {branch}; working tree clean"
    named = ", ".join(line[3:] for line in changes[:MAX_NAMED])
    more = f" and {len(changes) - MAX_NAMED} more" if len(changes) > MAX_NAMED else ""
    return f"branch {branch}; {len(changes)} changed or untracked: {named}{more}"
