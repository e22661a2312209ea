"""The session's state, with one owner: the conversation, the files in view, and what the model
has seen of each file.

Everything that changes it goes through `SessionState`'s small API (tools get a narrow handle,
`tools.base.ToolState`; the app sends requests; sessions persist it), and every change to the
workspace is told to the subscribers as a `WorkspaceChanged`, so the session file, the sidebar
and the debug log follow it without polling.

`FileView` names what the model was shown of a file: 1-based inclusive lines. The read ledger
records views: a file the model was shown, by read_file or as a window in the prompt, can be
edited until it changes. The workspace's windows (core/workspace.py) follow the code as it moves.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zizou.contracts.conversation import Conversation
from zizou.contracts.task_state import PatchResult, TaskState
from zizou.contracts.windows import WindowSpec
from zizou.contracts.workspace import Window, WindowInfo, Workspace


@dataclass(frozen=True)
class FileView:
    """A project file, or a window of its lines (1-based, inclusive; None: to the end)."""

    path: str  # project-relative POSIX path
    start_line: int | None = None
    end_line: int | None = None


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
        self.record_hash(path, content_hash(data), view)

    def record_hash(self, path: Path, digest: str, view: FileView | None = None) -> None:
        self.hashes[path] = digest
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
    """The open windows changed (opened, closed, moved, lost): `windows` is the whole new set,
    in order."""

    type = "workspace_changed"
    windows: tuple[WindowInfo, ...]
    by: str  # who changed it: "model" (a tool), "user" (the app), "session" (resumed), "render"
    # What the session file keeps of each window (Window.to_record), in the same order.
    records: tuple[dict[str, Any], ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "by": self.by, "windows": [w.to_dict() for w in self.windows]}


MAX_STICKY = 8  # sticky instructions kept in the prompt at once


@dataclass(frozen=True)
class StateChanged:
    """The task state changed: `value` is all of it now. For the session file: the patch that
    changed it (`patch`, RFC 6902 ops, or `merge`, an RFC 7396 object), or `snapshot` when the
    whole value should be kept (a reset, a restore, every 50 patches)."""

    type = "state_changed"
    value: Mapping[str, Any]
    source: str  # "model", "user" or "session"
    changed_paths: tuple[str, ...] = ()
    patch: tuple[dict[str, Any], ...] | None = None
    merge: dict[str, Any] | None = None
    snapshot: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "source": self.source, "paths": list(self.changed_paths)}


@dataclass(frozen=True)
class InstructionsLoaded:
    """Sticky instructions the model asked for: shown in the INSTRUCTIONS layer from now on."""

    type = "instructions_loaded"
    sticky: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "sticky": list(self.sticky)}


@dataclass(frozen=True)
class ModeChanged:
    """The session's mode changed ("build", "plan"): the tools offered follow it."""

    type = "mode_changed"
    mode: str
    by: str  # "user", "cli", "session", or the hook that switched it

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "mode": self.mode, "by": self.by}


@dataclass(frozen=True)
class HookStateChanged:
    """A hook's state value changed (batched: told once per step, after the step is planned)."""

    type = "hook_state_changed"
    hook: str  # the hook file's name
    key: str
    value: Any

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, "hook": self.hook, "key": self.key}


StateEvent = WorkspaceChanged | StateChanged | InstructionsLoaded | ModeChanged | HookStateChanged
Subscriber = Callable[[StateEvent], None]


class SessionState:
    """The conversation, the workspace of open windows, and the read ledger of one session."""

    def __init__(self, conversation: Conversation | None = None) -> None:
        self.conversation = conversation if conversation is not None else Conversation()
        self.ledger = FileLedger()
        self.workspace = Workspace()
        self._subscribers: list[Subscriber] = []
        self._told: tuple[tuple[WindowInfo, ...], tuple[dict[str, Any], ...]] = ((), ())
        # A tool's work runs in a worker thread while the app may open or drop a window and the
        # prompt renders them: one change at a time, each told in the order it was made.
        self.lock = threading.RLock()
        self.task: TaskState | None = None  # None: no task state (a schema that cannot be used)
        self.task_problem: str | None = None  # why there is none, when there is none
        self.sticky: tuple[str, ...] = ()  # instructions kept in the prompt for the session
        self.mode = "build"  # "plan": read-only tools (the built-in mode hooks)
        self.hook_state: dict[str, dict[str, Any]] = {}  # hook file -> key -> value

    def subscribe(self, subscriber: Subscriber) -> None:
        self._subscribers.append(subscriber)

    @property
    def windows(self) -> tuple[WindowInfo, ...]:
        """The open windows, in the order they were opened."""
        with self.lock:
            return self.workspace.infos()

    def window(self, window_id: str, use: bool = True) -> Window | None:
        """The open window `window_id`; `use` (the model names it to work on it): in use, it
        collapses last."""
        with self.lock:
            found = self.workspace.get(window_id)
            if found is not None and use:
                self.workspace.touch(found)
            return found

    def paths(self) -> tuple[str, ...]:
        """The files with open windows, each once, in the order first opened."""
        with self.lock:
            return self.workspace.paths()

    def windows_of(self, path: str) -> list[Window]:
        with self.lock:
            return self.workspace.of(path)

    def open_window(self, path: str, spec: WindowSpec, by: str = "model") -> tuple[Window, bool]:
        """Open `spec` of `path` (WorkspaceFull when there is no room): the window, and whether
        it is new."""
        with self.lock:
            opened = self.workspace.open(path, spec, by)
            self.tell(by)
            return opened

    def close_windows(
        self, path: str | None = None, window_id: str | None = None, by: str = "model"
    ) -> list[Window]:
        """Close the window `window_id`, or every window of `path`; the windows closed."""
        with self.lock:
            if window_id is not None:
                found = self.workspace.get(window_id)
                chosen = [found] if found is not None and path in (None, found.path) else []
            else:
                chosen = self.workspace.of(path or "")
            closed = self.workspace.close(chosen)
            self.tell(by)
            return closed

    def restore(self, windows: Iterable[Window]) -> None:
        """The workspace a resumed session had."""
        with self.lock:
            self.workspace.restore(windows)
            self.tell("session")

    def clear(self) -> None:
        """A new conversation: no messages, nothing open, nothing seen."""
        with self.lock:
            self.conversation.clear()
            self.ledger = FileLedger()
            self.workspace.clear()
            self.tell("user")

    def record_view(self, path: Path, data: bytes, view: FileView) -> None:
        """The model was shown `view` of the file at `path`, whose content is `data`."""
        with self.lock:
            self.ledger.record(path, data, view)
            self.workspace.touch_path(view.path)

    def record_seen(self, path: Path, digest: str, view: FileView) -> None:
        """As `record_view`, for content whose hash is already known (the workspace's)."""
        with self.lock:
            self.ledger.record_hash(path, digest, view)

    def check_unchanged(self, path: Path, data: bytes) -> str | None:
        """None when the model saw this content of the file, else why an edit must wait."""
        with self.lock:
            return self.ledger.check(path, data)

    def file_written(
        self, path: Path, rel: str, before: list[str] | None, after: list[str], data: bytes
    ) -> None:
        """A file tool wrote `data` (lines `after`) over `before`: the model knows the new
        content, and the windows on the file follow the edit."""
        with self.lock:
            self.ledger.record(path, data, FileView(rel))
            self.workspace.file_written(rel, before, after, content_hash(data))
            self.tell("model")

    def update_task(
        self,
        patch: list[dict[str, Any]] | None = None,
        merge: dict[str, Any] | None = None,
        source: str = "model",
    ) -> PatchResult:
        """Apply an RFC 6902 `patch` or an RFC 7396 `merge` to the task state, atomically and
        validated; the result says what happened (nothing, when it was refused)."""
        with self.lock:
            task = self.task
            if task is None:
                why = self.task_problem or "this session has no task state"
                return PatchResult(False, f"Not applied: {why}. State unchanged.", {}, ())
            try:
                if patch is None:
                    result = task.apply_merge(merge, source)
                else:
                    result = task.apply_patch(patch, source)
            except RecursionError:  # a schema that refers to itself without end
                why = "the schema refers to itself without end at this field"
                return PatchResult(False, f"Not applied: {why}. State unchanged.", task.value, ())
            if result.ok and result.changed_paths:
                self._state_changed(task, source, result.changed_paths, patch, merge)
            return result

    def reset_task(self, source: str = "user") -> None:
        """The task state back to its zero value (kept whole in the session file)."""
        with self.lock:
            if self.task is not None:
                self.task.reset(source)
                self._state_changed(self.task, source, ("",), None, None, snapshot=True)

    def reset_task_to(self, value: Mapping[str, Any]) -> None:
        """The task state set whole (already checked against the schema: `--state FILE`), kept
        whole in the session file."""
        with self.lock:
            if self.task is not None and not self.task.restore(value):
                self._state_changed(self.task, "user", ("",), None, None, snapshot=True)

    def add_sticky(self, name: str) -> None:
        with self.lock:
            if name in self.sticky or len(self.sticky) >= MAX_STICKY:
                return
            self.sticky = (*self.sticky, name)
            event = InstructionsLoaded(self.sticky)
            for subscriber in self._subscribers:
                subscriber(event)

    def set_mode(self, mode: str, by: str = "user") -> bool:
        """Switch the session's mode; False when it already was `mode`."""
        with self.lock:
            if mode == self.mode:
                return False
            self.mode = mode
            self._tell_all(ModeChanged(mode, by))
            return True

    def set_hook_state(self, hook: str, key: str, value: Any) -> None:
        """A hook's state value (JSON-compatible), kept in the session file."""
        with self.lock:
            values = self.hook_state.setdefault(hook, {})
            if key in values and values[key] == value:
                return
            values[key] = value
            self._tell_all(HookStateChanged(hook, key, value))

    def _tell_all(self, event: StateEvent) -> None:
        for subscriber in self._subscribers:
            subscriber(event)

    def _state_changed(
        self,
        task: TaskState,
        source: str,
        paths: tuple[str, ...],
        patch: list[dict[str, Any]] | None,
        merge: dict[str, Any] | None,
        snapshot: bool = False,
    ) -> None:
        snapshot = snapshot or task.snapshot_due
        if snapshot:
            task.mark_snapshot()
        event = StateChanged(
            task.value,
            source,
            paths,
            None if snapshot or patch is None else tuple(patch),
            None if snapshot or patch is not None else merge,
            snapshot,
        )
        for subscriber in self._subscribers:
            subscriber(event)

    def tell(self, by: str) -> None:
        """Tell the subscribers the workspace as it is now, if it changed since last told."""
        with self.lock:
            infos = self.workspace.infos()
            records = tuple(w.to_record() for w in self.workspace.windows)
            # The records too: an edit inside a window changes its lines, not how it is shown,
            # and the session file must keep where the window is now.
            if (infos, records) == self._told:
                return
            self._told = (infos, records)
            event = WorkspaceChanged(infos, by, records)
            for subscriber in self._subscribers:
                subscriber(event)


__all__ = [
    "FileLedger",
    "FileView",
    "HookStateChanged",
    "InstructionsLoaded",
    "ModeChanged",
    "SessionState",
    "StateChanged",
    "StateEvent",
    "WorkspaceChanged",
    "content_hash",
]
