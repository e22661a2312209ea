"""The settings files a Claude Code user keeps, read once for their hooks and permission rules.

Three files, in this order: the user's `~/.claude/settings.json` (the home is `agents_home()`,
so `ZIZOU_AGENTS_HOME` points it elsewhere), the project's `.claude/settings.json` (it comes
with the repository) and `.claude/settings.local.json` (the user's own, kept out of git). Each is
read through the path layer like any file zizou opens on its own: a symbolic link out of its
folder, or to a secret file, is refused. A file that is not JSON, or not a JSON object, is
named with its line and left out; the others still load.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from zizou import confined
from zizou.contracts.instruction_files import agents_home
from zizou.errors import PathError

SettingsOrigin = Literal["user", "project", "local"]
# (where, relative to the project or `~`, in the home folder?, origin), in the order applied.
SETTINGS_FILES: tuple[tuple[str, bool, SettingsOrigin], ...] = (
    (".claude/settings.json", True, "user"),
    (".claude/settings.json", False, "project"),
    (".claude/settings.local.json", False, "local"),
)
MAX_SETTINGS_BYTES = 1024 * 1024


@dataclass(frozen=True)
class SettingsFile:
    """One settings file as read: how the user names it, who wrote it, its real path (what a
    hook's trust is keyed by), its size in characters and its top-level object."""

    label: str  # `.claude/settings.json`, `~/.claude/settings.json`
    origin: SettingsOrigin
    path: Path
    chars: int
    data: dict[str, Any]

    @property
    def users_own(self) -> bool:
        """Written by the user, not brought by the repository: its `allow` rules count."""
        return self.origin in ("user", "local")


@dataclass
class ClaudeSettings:
    files: list[SettingsFile] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # each names the file, and the line


def load_claude_settings(root: Path, home: Path | None = None) -> ClaudeSettings:
    """Every settings file of the user and the project that exists and is usable."""
    found = ClaudeSettings()
    home = agents_home() if home is None else home
    for rel, in_home, origin in SETTINGS_FILES:
        base = home if in_home else root
        label = ("~/" if in_home else "") + rel
        loaded = _load(base, rel, label, origin)
        if isinstance(loaded, SettingsFile):
            found.files.append(loaded)
        elif loaded is not None:
            found.problems.append(loaded)
    return found


def _load(base: Path, rel: str, label: str, origin: SettingsOrigin) -> SettingsFile | str | None:
    """The file, None when there is none, or why it is left out."""
    if not base.is_dir():
        return None
    try:
        path = confined.resolve_unasked(base, rel)
        info = confined.stat(base, path)
        if info is None:
            return None
        if not stat.S_ISREG(info.st_mode):
            return f"{label} is not a regular file; it is not used"
        data = confined.read_bytes(base, path, MAX_SETTINGS_BYTES)
    except PathError as err:
        return f"{label} is not used: {err}"
    text = data.decode("utf-8", errors="replace")
    try:
        document = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as err:
        return f"{label} line {err.lineno}: not JSON ({err.msg}); the file is not used"
    except RecursionError:
        return f"{label} line 1: nested too deeply; the file is not used"
    if not isinstance(document, dict):
        return f"{label} line 1: not a JSON object; the file is not used"
    return SettingsFile(label, origin, path, len(text), document)


__all__ = [
    "SETTINGS_FILES",
    "ClaudeSettings",
    "SettingsFile",
    "SettingsOrigin",
    "load_claude_settings",
]
