"""The session's state, with one owner: the conversation, the files in view, and what the model
has seen of each file.

Everything that changes it goes through `SessionState`'s small API (tools get a narrow handle,
`tools.base.ToolState`; the app sends requests; sessions persist it), and every change to the
workspace is told to the subscribers as a `WorkspaceChanged`, so the session file, the sidebar
and the debug log follow it without polling.

`FileView` is the one way a file (or a window of its lines) is named: 1-based inclusive lines,
for read_file's windows, pins and the workspace alike. The read ledger records views: a file the
model was shown, by read_file or as a pin in the prompt, can be edited until it changes.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from zizou.core.conversation import Conversation


@dataclass(frozen=True)
class FileView:
    """A project file, or a window of its lines (1-based, inclusive; None: to the end)."""

    path: str  # project-relative POSIX path
    start_line: int | None = None
    end_line: int | None = None

    def window(self, total: int) -> tuple[int, int]:
        """The first and last line shown of a file of `total` lines."""
        return self.start_line or 1, min(self.end_line or total, total)

    def describe(self) -> str:
        if self.start_line is None and self.end_line is None:
            return self.path
        return f"{self.path}:{self.start_line or 1}-{self.end_line or ''}"


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class FileLedger:
    """What the model has been shown of each file, and the file's content hash then.

    `edit_file` refuses to edit a file the model has not seen, or one that changed since.
    """

    hashes: dict[Path, str] = field(default_factory=dict)
    views: dict[Path, FileView] = field(default_factory=dict)

    def record(self, path: Path, data: bytes, view: FileView | None = None) -> None:
        self.hashes[path] = content_hash(data)
        if view is not None:
            self.views[path] = view

    def check(self, path: Path, data: bytes) -> str | None:
        """None when the edit may go ahead, else the reason it may not."""
        seen = self.hashes.get(path)
        if seen is None:
            return "read the file with read_file before editing it"
        if seen != content_hash(data):
            return "the file changed since you last read it; read it again before editing"
        return None


@dataclass(frozen=True)
class WorkspaceChanged:
    """The files in view changed: `views` is the whole new set, in order."""

    type = "workspace_changed"
    views: tuple[FileView, ...]
    by: str  # who changed it: "model" (a tool), "user" (the app) or "session" (resumed)


StateEvent = WorkspaceChanged
Subscriber = Callable[[StateEvent], None]


class SessionState:
    """The conversation, the workspace of file views, and the read ledger of one session."""

    def __init__(self, conversation: Conversation | None = None) -> None:
        self.conversation = conversation if conversation is not None else Conversation()
        self.ledger = FileLedger()
        self._views: list[FileView] = []
        self._subscribers: list[Subscriber] = []
        self._lock = threading.RLock()

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    @property
    def views(self) -> tuple[FileView, ...]:
        """The files in view (pinned), in the order they were added."""
        return tuple(self._views)

    def pin(self, view: FileView, by: str = "model") -> None:
        """Put `view` in the workspace, replacing any earlier view of the same file."""
        self._set([v for v in self._views if v.path != view.path] + [view], by)

    def unpin(self, path: str, by: str = "user") -> bool:
        """Take the file out of the workspace; False when it was not in it."""
        kept = [v for v in self._views if v.path != path]
        if len(kept) == len(self._views):
            return False
        self._set(kept, by)
        return True

    def restore(self, views: Iterable[FileView]) -> None:
        """The workspace a resumed session had."""
        self._set(list(views), "session")

    def clear(self) -> None:
        """A new conversation: no messages, nothing in view, nothing seen."""
        self.conversation.clear()
        self.ledger = FileLedger()
        if self._views:
            self._set([], "user")

    def record_view(self, path: Path, data: bytes, view: FileView) -> None:
        """The model was shown `view` of the file at `path`, whose content is `data`."""
        self.ledger.record(path, data, view)

    def check_unchanged(self, path: Path, data: bytes) -> str | None:
        """None when the model saw this content of the file, else why an edit must wait."""
        return self.ledger.check(path, data)

    def _set(self, views: list[FileView], by: str) -> None:
        # A tool's work runs in a worker thread while the app may pin or drop a file: one
        # change at a time, each told to the subscribers in the order it was made.
        with self._lock:
            if views == self._views:
                return
            self._views = views
            event = WorkspaceChanged(tuple(views), by)
            for subscriber in self._subscribers:
                subscriber(event)


__all__ = [
    "FileLedger",
    "FileView",
    "SessionState",
    "StateEvent",
    "WorkspaceChanged",
    "content_hash",
]
