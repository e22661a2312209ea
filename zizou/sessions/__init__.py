"""Crash-safe sessions: append-only JSONL files under `.zizou/sessions/`.

A project's sessions are found as git finds its repository (`find_project`), so `zizou sessions
list` and `zizou -c` work from any subdirectory of the project.
"""

from pathlib import Path

from zizou.paths import PROJECT_DIR_NAME
from zizou.sessions.store import LoadedSession, SessionStore, SessionSummary, SessionWriter


def find_project(start: Path) -> Path:
    """The directory whose sessions `start` belongs to: `start` itself or the nearest parent
    with a `.zizou/sessions` directory, not looking past the root of a git work tree; `start`
    when there is none."""
    start = start.resolve()
    for directory in (start, *start.parents):
        if (directory / PROJECT_DIR_NAME / "sessions").is_dir():
            return directory
        if (directory / ".git").exists():
            break
    return start


__all__ = ["LoadedSession", "SessionStore", "SessionSummary", "SessionWriter", "find_project"]
