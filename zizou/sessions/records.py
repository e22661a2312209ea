"""The lines of a session file, validated with pydantic when a session is loaded.

A `meta` line opens the file (its `v` is the format: a file newer than this zizou reads is
refused with a clear message); `message` lines add to the conversation, `turn` lines mark where
turns start and end, and a `compacted` line replaces the conversation so far with its shortened
copy. `checkpoint`, `command`, `undone` and `redone` lines keep what undo needs
(zizou/checkpoints/): the files each turn changed, the commands it ran, and the turns undone and
done again. Format 1 files (wire-format messages, no `ok` on tool results) load as they always
did.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

FORMAT_VERSION = 2  # 2: messages are typed records (core/messages.py): tool results say `ok`


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class MetaRecord(_Record):
    kind: Literal["meta"] = "meta"
    v: int = FORMAT_VERSION
    id: str
    created: str  # ISO 8601, UTC
    model: str | None = None


class MessageRecord(_Record):
    kind: Literal["message"] = "message"
    message: dict[str, Any]


class TurnRecord(_Record):
    kind: Literal["turn"] = "turn"
    event: Literal["started", "finished"]
    ts: str
    reason: str | None = None
    usage: dict[str, Any] = Field(default_factory=dict)


class CompactedRecord(_Record):
    """The conversation was shortened to fit the context window: from this line on it is
    `messages`, which replace every message before it. The earlier lines stay in the file, so a
    crash while this line is written loses nothing (a torn line is skipped, the full history
    loads)."""

    kind: Literal["compacted"] = "compacted"
    ts: str
    dropped: int = 0  # how many messages fewer the shortened conversation has
    messages: list[dict[str, Any]]


class WorkspaceRecord(_Record):
    """The open windows changed: `windows` is the whole new set (each as `Window.to_record`
    writes it); the last one read is the workspace a resumed session opens with. Files written
    before windows had ids have `views` instead (path, start_line, end_line), read as line
    windows."""

    kind: Literal["workspace"] = "workspace"
    windows: list[dict[str, Any]] | None = None
    views: list[dict[str, Any]] = Field(default_factory=list)


class StateRecord(_Record):
    """The task state changed: by `patch` (RFC 6902 ops) or `merge` (RFC 7396), or, every 50
    patches and after a reset, the whole value as `snapshot`. Loading replays them in order."""

    kind: Literal["state"] = "state"
    source: str = "model"
    patch: list[dict[str, Any]] | None = None
    merge: dict[str, Any] | None = None
    snapshot: dict[str, Any] | None = None


class InstructionsRecord(_Record):
    """The sticky instructions the model loaded so far (the whole set)."""

    kind: Literal["instructions"] = "instructions"
    sticky: list[str]


class ModeRecord(_Record):
    """The session's mode changed ("build", "plan"); the last one is the mode it resumes in."""

    kind: Literal["mode"] = "mode"
    mode: str


class HookStateRecord(_Record):
    """A hook's state value changed; the last value of each (hook, key) is what it resumes with."""

    kind: Literal["hook_state"] = "hook_state"
    hook: str
    key: str
    value: Any = None


_SHA256 = re.compile(r"[0-9a-f]{64}")
# Never undone, whatever a session file says: git's own files (a hook there runs) and zizou's.
_NEVER_RESTORED = (".git", ".zizou")


def _restorable_path(path: str) -> str:
    """A session file may come with a repository: a path undo would write must be a plain
    project-relative one, outside .git/ and .zizou/."""
    parts = path.split("/")
    if (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(part in ("", ".", "..") for part in parts)
        or parts[0] in _NEVER_RESTORED
    ):
        raise ValueError(f"{path!r} is not a path undo restores")
    return path


def _hash(value: str | None) -> str | None:
    if value is not None and not _SHA256.fullmatch(value):
        raise ValueError("not a SHA-256 hash")
    return value


def _permissions(mode: int | None) -> int | None:
    """Permission bits only: no setuid, setgid or sticky bit ever comes back from a record."""
    return None if mode is None else mode & 0o777


class _FileLine(_Record):
    """What every line naming a file to restore shares, checked as it is read."""

    path: str
    before: str | None = None
    after: str | None = None
    mode: int | None = None
    # Seen changed while a command ran, where no copy-on-write layer could tell whether the
    # command changed it (the user or another program may have): undo asks before reverting.
    unsure: bool = False

    _path = field_validator("path")(_restorable_path)
    _hashes = field_validator("before", "after")(_hash)
    _mode = field_validator("mode")(_permissions)


class CheckpointRecord(_FileLine):
    """A file a tool changes, for undo (zizou/checkpoints/): written before the tool runs
    (`after` is then `before`, not `settled`: after a crash undo sees the file as changed outside
    zizou) and again once it ended, `settled`, when that says more. Hashes are SHA-256, the bytes
    kept in `.zizou/checkpoints/`; None: the file did not exist. Loading keeps, for each turn and
    path, the first `before` and the last `after`."""

    kind: Literal["checkpoint"] = "checkpoint"
    turn: int  # the turn's user message: its index among the conversation's user messages
    # `path`: project-relative POSIX, as the tool's access resolved it; `mode`: the file's
    # permission bits before (a deleted file comes back so).
    unsaved: str | None = None  # why its bytes before were not kept (then undo cannot restore it)
    settled: bool = False  # `after` is what the tool left


class ChangedFile(_FileLine):
    """A file of an undone or redone turn: its hash before the turn, and after it (when undone:
    as undo found it, the bytes kept for redo)."""

    unsaved: str | None = None


UnkeptWhy = Literal["ignored", "link", "repository", "name"]
UnkeptChange = Literal["created", "changed", "deleted"]


class UnkeptPath(_Record):
    """A path a command changed that undo cannot restore, named in its previews (only shown,
    never written): why it was not kept, and what the command did to it."""

    path: str = Field(max_length=4096)
    why: UnkeptWhy
    change: UnkeptChange


class CommandNote(_Record):
    """A command of a turn whose files were snapshotted before and after it ran (its changes
    are `checkpoint` lines like a tool's): what it changed that undo cannot restore (`unkept`,
    and how many more were not listed), or why nothing of it was kept (`problem`)."""

    command: str
    unkept: list[UnkeptPath] = Field(default_factory=list, max_length=1000)
    more: int = Field(default=0, ge=0)
    problem: str | None = None


class CommandRecord(_Record):
    """A command turn `turn` ran, snapshotted (zizou/checkpoints/commands.py)."""

    kind: Literal["command"] = "command"
    turn: int
    note: CommandNote


class UndoneRecord(_Record):
    """A turn was undone: its files were put back as they were before it, and from this line on
    the conversation ends before the turn's first message (the `!commands` shared with it
    included). `messages` are the ones removed, and `files` what redo puts back."""

    kind: Literal["undone"] = "undone"
    ts: str
    turn: int
    messages: list[dict[str, Any]]
    files: list[ChangedFile] = Field(default_factory=list)
    commands: list[CommandNote] = Field(default_factory=list)  # its commands, for redo


class RedoneRecord(_Record):
    """An undone turn was done again: its files are as undo found them, and its `messages`
    are back at the end of the conversation."""

    kind: Literal["redone"] = "redone"
    ts: str
    turn: int
    messages: list[dict[str, Any]]
    files: list[ChangedFile] = Field(default_factory=list)
    commands: list[CommandNote] = Field(default_factory=list)


Record = (
    MetaRecord
    | MessageRecord
    | TurnRecord
    | CompactedRecord
    | WorkspaceRecord
    | StateRecord
    | InstructionsRecord
    | ModeRecord
    | HookStateRecord
    | CheckpointRecord
    | CommandRecord
    | UndoneRecord
    | RedoneRecord
)
# What undo replays, in the file's order: the changes, the undos and redos, where each turn
# started (a new turn clears what could be redone), and the compactions that replaced the turns
# (a summary: the turns before it cannot be undone).
CheckpointLine = (
    CheckpointRecord | CommandRecord | UndoneRecord | RedoneRecord | TurnRecord | CompactedRecord
)
