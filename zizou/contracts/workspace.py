"""The workspace: open files, or windows of them, kept in front of the model at every step.

Like the tabs of an editor, each `Window` names a file and the part of it shown (`WindowSpec`,
core/windows.py), has an id the model and the user can name it by (`w3`), and remembers where it
was last seen: its lines, the text of its first and last lines, and the file's content hash then,
so the next render can tell a change zizou made (already mapped) from one made outside zizou
(relocated by those lines). The session owns one `Workspace` (core/state.py); it is changed only
through these methods, under the session's lock, and every change is told to its subscribers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from zizou.contracts.windows import (
    WHOLE_FILE,
    Anchor,
    Opcode,
    WindowError,
    WindowSpec,
    line_opcodes,
    map_through,
    parse_spec,
)

MAX_WINDOWS = 32
MAX_WINDOWS_PER_FILE = 8

WindowStatus = Literal["open", "lost", "collapsed", "cut", "missing"]


@dataclass
class Window:
    """One open window. `span` is where it was last seen (1-based, inclusive; None before its
    first render); `shown` the lines the model was shown then, for "changed since"."""

    id: str
    path: str  # project-relative POSIX path
    spec: WindowSpec = WHOLE_FILE
    by: str = "model"  # who opened it: "model", "user" or "session"
    span: tuple[int, int] | None = None
    first_text: str | None = None
    last_text: str | None = None
    file_hash: str | None = None  # of the content `span` was found in
    used: int = 0  # a tick of the workspace's clock: the least recently used collapse first
    status: WindowStatus = "open"
    note: str = ""  # why it is lost, collapsed or cut; what changed
    shown: tuple[str, ...] | None = field(default=None, repr=False)
    moved_to: int | None = None  # where an edit moved its first line, until it is found again

    @property
    def hint(self) -> int | None:
        """The line to find its anchor nearest to: where it was last seen, or moved since."""
        if self.moved_to is not None:
            return self.moved_to
        return self.span[0] if self.span else None

    def describe(self) -> str:
        """`src/app.py · w3 · lines 12-30 · /def helper/`, for listings and the debug log."""
        where = f"lines {self.span[0]}-{self.span[1]}" if self.span else "not yet shown"
        parts = [self.path, self.id, where]
        if not self.spec.is_whole and not self.spec.by_lines:
            parts.append(self.spec.describe())
        if self.status != "open":
            parts.append(self.status)
        return " · ".join(parts)

    def info(self) -> WindowInfo:
        return WindowInfo(
            self.id, self.path, self.spec.describe(), self.span, self.status, self.note, self.by
        )

    def to_record(self) -> dict[str, Any]:
        """What the session file keeps of it: enough to show the same lines after `-c`."""
        return {
            "id": self.id,
            "path": self.path,
            "spec": self.spec.to_dict(),
            "by": self.by,
            "span": list(self.span) if self.span else None,
            "first_text": self.first_text,
            "last_text": self.last_text,
            # A lost window is looked for again when resumed, not shown where it was last seen.
            "file_hash": None if self.status == "lost" else self.file_hash,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Window:
        """A window from the session file, which is not trusted (a repository can ship one):
        raises WindowError / KeyError / TypeError / ValueError when the record is damaged or
        names anything but a plain relative path and whole lines (the caller skips it)."""
        window_id, path = str(data["id"]), str(data["path"])
        if not _WINDOW_ID.fullmatch(window_id):
            raise WindowError(f"{window_id!r} is not a window id")
        if not _plain_relative(path):
            raise WindowError(f"{path!r} is not a path relative to the project")
        span = data.get("span")
        placed = (int(span[0]), int(span[1])) if span else None
        if placed is not None and not 1 <= placed[0] <= placed[1] + 1:
            raise WindowError(f"lines {placed[0]}-{placed[1]} are not a range of lines")
        return cls(
            id=window_id,
            path=path,
            spec=parse_spec(_flat(data.get("spec") or {})),
            by="session",
            span=placed,
            first_text=_text_or_none(data.get("first_text")),
            last_text=_text_or_none(data.get("last_text")),
            file_hash=_text_or_none(data.get("file_hash")),
        )


_WINDOW_ID = re.compile(r"w[1-9]\d{0,5}")


def _plain_relative(path: str) -> bool:
    parts = path.split("/")
    return bool(path) and not path.startswith("/") and all(p not in ("", ".", "..") for p in parts)


def _text_or_none(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _flat(spec: dict[str, Any]) -> dict[str, Any]:
    """The nested form `WindowSpec.to_dict` writes, as `parse_spec` reads it."""
    return {k: v for k, v in spec.items() if v is not None}


@dataclass(frozen=True)
class WindowInfo:
    """A window as front ends show it (sidebar, `/workspace`, the JSON result)."""

    id: str
    path: str
    spec: str
    span: tuple[int, int] | None
    status: WindowStatus
    note: str = ""
    by: str = "model"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "path": self.path,
            "window": self.spec,
            "lines": list(self.span) if self.span else None,
            "status": self.status,
            "note": self.note,
        }


class WorkspaceFull(WindowError):
    """Too many windows: the message names the least recently used one to close."""


class Workspace:
    """The open windows of one session, in the order they were opened."""

    def __init__(self) -> None:
        self._windows: list[Window] = []
        self._next_id = 1
        self._clock = 0

    @property
    def windows(self) -> tuple[Window, ...]:
        return tuple(self._windows)

    def infos(self) -> tuple[WindowInfo, ...]:
        return tuple(window.info() for window in self._windows)

    def paths(self) -> tuple[str, ...]:
        """The open files, each once, in the order first opened (the repo map's focus)."""
        return tuple(dict.fromkeys(window.path for window in self._windows))

    def get(self, window_id: str) -> Window | None:
        return next((w for w in self._windows if w.id == window_id), None)

    def of(self, path: str) -> list[Window]:
        return [w for w in self._windows if w.path == path]

    def touch(self, window: Window) -> None:
        """`window` was used (opened, named, read, edited): it collapses last."""
        self._clock += 1
        window.used = self._clock

    def touch_path(self, path: str) -> None:
        for window in self.of(path):
            self.touch(window)

    def open(self, path: str, spec: WindowSpec, by: str = "model") -> tuple[Window, bool]:
        """Open a window (or find the same one open already): the window, and whether it is
        new. WorkspaceFull when the workspace or the file has no room left."""
        for window in self.of(path):
            if window.spec == spec:
                self.touch(window)
                return window, False
        if len(self._windows) >= MAX_WINDOWS:
            oldest = min(self._windows, key=lambda w: w.used)
            raise WorkspaceFull(
                f"the workspace already has {MAX_WINDOWS} windows, the most it holds; close one "
                f"first (the least recently used is {oldest.id}: {oldest.describe()})"
            )
        same_file = self.of(path)
        if len(same_file) >= MAX_WINDOWS_PER_FILE:
            oldest = min(same_file, key=lambda w: w.used)
            raise WorkspaceFull(
                f"{path} already has {MAX_WINDOWS_PER_FILE} windows open, the most per file; "
                f"close one first (the least recently used is {oldest.id}: {oldest.describe()})"
            )
        window = Window(f"w{self._next_id}", path, spec, by)
        self._next_id += 1
        self.touch(window)
        self._windows.append(window)
        return window, True

    def close(self, windows: Iterable[Window]) -> list[Window]:
        gone = {id(w) for w in windows}
        closed = [w for w in self._windows if id(w) in gone]
        self._windows = [w for w in self._windows if id(w) not in gone]
        return closed

    def clear(self) -> None:
        self._windows = []

    def restore(self, windows: Iterable[Window]) -> None:
        """The windows a resumed session had, ids kept; new ids continue after them."""
        self._windows = []
        for window in windows:
            if len(self._windows) >= MAX_WINDOWS:
                break
            if self.get(window.id) is not None:
                continue  # a damaged file's second window of that id
            self.touch(window)
            self._windows.append(window)
        numbers = [int(w.id[1:]) for w in self._windows if w.id[1:].isdigit()]
        self._next_id = max(numbers, default=0) + 1

    def file_written(
        self, path: str, before: list[str] | None, after: list[str], after_hash: str
    ) -> None:
        """zizou's own tool rewrote `path` from `before` to `after` (LF-split lines): line
        windows follow the edit; text, regex and whole-file windows are found again at the next
        render, near where their lines moved. `before` None: the file was new, or its old
        content unknown (windows relocate at the next render)."""
        opcodes: list[Opcode] | None = None  # the edit, diffed once for all the file's windows
        for window in self.of(path):
            self.touch(window)  # in use: the last to collapse when the layer is over budget
            if window.span is None or window.file_hash is None:
                continue
            start, end = window.span
            moved = None
            if before is not None and end >= start:
                if opcodes is None:
                    opcodes = line_opcodes(before, after)
                moved = map_through(start, min(end, len(before)), opcodes)
            if not window.spec.by_lines or window.spec.is_whole:
                if moved is not None:
                    window.moved_to = moved[0]  # the hint for finding it again
                window.file_hash = None
                continue
            if before is None or window.status == "lost" or not _holds(window, before):
                continue  # lost, or changed outside zizou since: the render looks for it again
            if moved is None:
                window.status, window.note = "lost", "its lines were deleted by an edit"
                window.file_hash = after_hash
                continue
            window.span, window.file_hash = moved, after_hash
            window.first_text, window.last_text = after[moved[0] - 1], after[moved[1] - 1]


def _holds(window: Window, lines: list[str]) -> bool:
    """Whether `lines` still hold the window's first and last lines where it was placed."""
    assert window.span is not None
    start, end = window.span
    return (
        0 < start <= end <= len(lines)
        and lines[start - 1] == window.first_text
        and lines[end - 1] == window.last_text
    )


def line_spec(start: int | None, end: int | None) -> WindowSpec:
    """The window of lines `start`-`end` (None: the file's first or last line)."""
    if start is None and end is None:
        return WHOLE_FILE
    return WindowSpec(
        start=Anchor(line=start) if start is not None else None,
        end=Anchor(line=end) if end is not None else None,
    )


__all__ = [
    "MAX_WINDOWS",
    "MAX_WINDOWS_PER_FILE",
    "Window",
    "WindowInfo",
    "WindowStatus",
    "Workspace",
    "WorkspaceFull",
    "line_spec",
]
