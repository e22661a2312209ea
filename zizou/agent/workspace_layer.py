"""The WORKSPACE layer: every open window, found again and shown with numbered lines.

At each step each window's file is read (by fd, inside the project; unchanged files come from a
cache keyed by their stat), its span is found again (core/windows.py: anchors resolved nearest
where the window was, line windows kept if the file is as zizou left it, else relocated by their
first and last lines), and it is shown under one header line:

    ## src/app.py · w3 · lines 12-30 · /def helper\\(x\\):/ · changed since your last step: 14-15

A window that cannot be shown is a one-line stub saying why and where it was last seen. The
layer has a budget (min(25% of the context window, 32k tokens)); when the windows do not fit,
the least recently used collapse to stubs, first to last, and the stub says so: nothing is
dropped silently. A window shown whole is recorded in the read ledger: the model may edit what
it sees.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from zizou.confined import open_handle
from zizou.contracts.state import FileView, SessionState, content_hash
from zizou.contracts.windows import Found, WindowError, changed_lines, ranges, relocate, resolve
from zizou.contracts.workspace import Window
from zizou.errors import PathError
from zizou.secret_files import is_secret_name
from zizou.tools.read_file import FileProblem, format_line, load_text

WINDOW_MAX_CHARS = 20_000  # one window's lines, at most; the rest is cut with a note
MAX_BUDGET_TOKENS = 32_000
BUDGET_SHARE = 0.25  # of the model's context window
CHARS_PER_TOKEN = 4  # the layer's estimate: cheap, and close enough to budget by


def budget_tokens(context_window: int | None) -> int:
    """The layer's budget: a quarter of the context window, at most 32k tokens."""
    if not context_window:
        return MAX_BUDGET_TOKENS
    return max(1_000, min(MAX_BUDGET_TOKENS, int(context_window * BUDGET_SHARE)))


@dataclass(frozen=True)
class _File:
    signature: tuple[int, ...]
    path: Path
    data: bytes
    digest: str
    lines: list[str]


@dataclass
class _Shown:
    window: Window
    text: str  # header + lines, or a stub
    full: bool  # the lines are shown whole (not a stub, not cut)
    file: _File | None


@dataclass(frozen=True)
class RenderedWorkspace:
    text: str
    note: str
    listing: tuple[str, ...]  # one line per window, for the debug log


class WorkspaceLayer:
    """Renders the session's windows; keeps the files it read, by stat, between steps."""

    def __init__(self, root: Path, state: SessionState) -> None:
        self.root = root
        self.state = state
        self._files: dict[str, _File] = {}
        # Each window's numbered lines, by the content and span they were made from.
        self._bodies: dict[str, tuple[tuple[str, int, int], str, bool]] = {}

    def render(self, budget: int, *, preview: bool = False) -> RenderedWorkspace:
        """The layer as the model's next step would get it. A `preview` (what `/prompt` shows
        a person) changes nothing: the windows' "changed since your last step", the read
        ledger and the session keep what the model last saw."""
        with self.state.lock:
            windows = self.state.workspace.windows
            if preview:
                windows = tuple(replace(window) for window in windows)
            if not windows:
                self._files.clear()
                return RenderedWorkspace("", "no open files", ())
            files: dict[str, _File | str] = {}
            shown = [self._show(window, files) for window in windows]
            collapsed = _fit(shown, budget * CHARS_PER_TOKEN)
            for item in () if preview else shown:
                if item.full and item.file is not None:
                    start, end = item.window.span or (1, 0)
                    view = FileView(item.window.path, start, end)
                    self.state.record_seen(item.file.path, item.file.digest, view)
            self._files = {k: v for k, v in files.items() if isinstance(v, _File)}
            ids = {window.id for window in windows}
            self._bodies = {k: v for k, v in self._bodies.items() if k in ids}
            if not preview:
                self.state.tell("render")
        note = f"{len(windows)} window{'s' * (len(windows) != 1)}"
        if collapsed:
            note += f", {collapsed} collapsed to fit {budget:,} tokens"
        listing = tuple(item.window.describe() for item in shown)
        return RenderedWorkspace("\n\n".join(item.text for item in shown), note, listing)

    def _body(
        self, window_id: str, file: _File, start: int, end: int, lines: list[str]
    ) -> tuple[str, bool]:
        key = (file.digest, start, end)
        cached = self._bodies.get(window_id)
        if cached is not None and cached[0] == key:
            return cached[1], cached[2]
        body, cut = _numbered(lines, start)
        self._bodies[window_id] = (key, body, cut)
        return body, cut

    def _load(self, rel: str, files: dict[str, _File | str]) -> _File | str:
        """The file's content, or why it cannot be shown."""
        if rel in files:
            return files[rel]
        try:
            with open_handle(self.root, rel) as handle:
                info = handle.stat()
                if info is None:
                    found: _File | str = f"{rel} no longer exists"
                elif is_secret_name(PurePosixPath(handle.rel).name):
                    # Checked at every render: a file swapped for a link to `.env` is not shown.
                    found = f"{handle.rel} may hold secrets, so the workspace does not show it"
                else:
                    found = self._read(rel, handle, info)
        except PathError as err:
            found = str(err)
        except FileProblem as err:
            found = str(err)
        except OSError as err:
            found = f"{rel} could not be read: {err.strerror or err}"
        files[rel] = found
        return found

    def _read(self, rel: str, handle: object, info: os.stat_result) -> _File:
        signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        cached = self._files.get(rel)
        if cached is not None and cached.signature == signature:
            return cached
        data, lines = load_text(handle)  # type: ignore[arg-type]
        return _File(signature, handle.path, data, content_hash(data), lines)  # type: ignore[attr-defined]

    def _show(self, window: Window, files: dict[str, _File | str]) -> _Shown:
        file = self._load(window.path, files)
        if isinstance(file, str):
            window.status, window.note = "missing", file
            return _Shown(window, _stub(window, file), False, None)
        _place(window, file)
        if window.status == "lost" or window.span is None:
            return _Shown(window, _stub(window, window.note), False, file)
        start, end = window.span
        current = file.lines[start - 1 : end]
        header = [window.path, window.id, f"lines {start}-{end}"]
        if not window.spec.is_whole and not window.spec.by_lines:
            header.append(window.spec.describe())
        if window.note:
            header.append(window.note)
        if window.shown is not None and window.shown != tuple(current):
            changed = changed_lines(list(window.shown), current, start)
            if changed:
                header.append(f"changed since your last step: lines {ranges(changed)}")
        body, cut = self._body(window.id, file, start, end, current)
        window.status = "cut" if cut else "open"
        window.shown = tuple(current)
        if not current:
            body = "(the file is empty)"
        return _Shown(window, "## " + " · ".join(header) + "\n" + body, not cut, file)


def _place(window: Window, file: _File) -> None:
    """Find the window's lines in the file as it is now; sets span, status and note."""
    lines, total = file.lines, len(file.lines)
    # A window whose file was missing is placed afresh (its note said the file was gone).
    same = window.file_hash == file.digest and window.span is not None
    same = same and window.status != "missing"
    if same and window.status == "lost":
        return  # nothing changed since it was lost: still lost, for the same reason
    if window.spec.is_whole:
        window.span, window.status, window.note = (1, total), "open", ""
    elif window.spec.by_lines:
        window.note = ""
        _place_lines(window, file, same)
    elif not same:
        window.note = ""
        try:
            found = resolve(window.spec, lines, window.hint, window.first_text)
        except WindowError as err:
            found = None
            window.note = str(err)
        window.moved_to = None
        if isinstance(found, Found):
            window.span, window.status = (found.start, found.end), "open"
            if found.candidates > 1:
                window.note = (
                    f"the anchor matches {found.candidates} places; this is the one nearest "
                    "where it was"
                )
        else:
            where = f"; last seen at lines {window.span[0]}-{window.span[1]}" if window.span else ""
            reason = found.reason if found is not None else window.note
            window.status, window.note = "lost", f"not found: {reason}{where}"
    if window.span is not None and window.status != "lost" and window.span[1] >= window.span[0]:
        window.first_text = lines[window.span[0] - 1]
        window.last_text = lines[window.span[1] - 1]
    window.file_hash = file.digest


def _place_lines(window: Window, file: _File, same: bool) -> None:
    lines, total = file.lines, len(file.lines)
    spec = window.spec
    to_end = spec.end is None
    if window.span is None:
        start = spec.start.line if spec.start and spec.start.line else 1
        end = spec.end.line if spec.end and spec.end.line else total
        if start > total:
            window.status = "lost"
            window.note = f"not found: line {start} is past the end of the file ({total} lines)"
            return
        window.span, window.status = (start, min(end, total)), "open"
        return
    start, end = window.span
    if not same and window.first_text is not None:
        found = relocate(
            window.first_text,
            window.first_text if window.last_text is None else window.last_text,
            end - start + 1,
            lines,
            start,
        )
        if found is None and window.status == "lost":  # still gone: not back at old numbers
            window.note = f"not found: its lines are gone; last seen at lines {start}-{end}"
            return
        if found is None:
            window.note = "the file changed outside zizou, and its lines were not found again"
        else:
            start, end = found
    if to_end:
        end = total
    if start > total:
        window.status = "lost"
        window.note = f"not found: the file has {total} lines now; it started at line {start}"
        return
    window.span, window.status = (start, min(max(end, start), total)), "open"


def _numbered(lines: list[str], first: int) -> tuple[str, bool]:
    shown: list[str] = []
    size = 0
    for offset, line in enumerate(lines):
        text = format_line(first + offset, line)
        size += len(text) + 1
        if shown and size > WINDOW_MAX_CHARS:
            last = first + len(lines) - 1
            shown.append(
                f"[... cut at {WINDOW_MAX_CHARS:,} characters; lines {first + offset}-{last} not "
                "shown: open a narrower window, or read_file them]"
            )
            return "\n".join(shown), True
        shown.append(text)
    return "\n".join(shown), False


def _stub(window: Window, why: str) -> str:
    what = window.spec.describe()
    return f"## {window.path} · {window.id} · {what} · {why}"


def _fit(shown: list[_Shown], budget_chars: int) -> int:
    """Collapse the least recently used windows until the layer fits; how many collapsed."""
    total = sum(len(item.text) + 2 for item in shown)
    collapsed = 0
    for item in sorted(shown, key=lambda s: s.window.used):
        if total <= budget_chars:
            break
        if not item.full and item.window.status != "cut":  # a stub already
            continue
        span = item.window.span or (1, 0)
        stub = (
            f"## {item.window.path} · {item.window.id} · lines {span[0]}-{span[1]} · collapsed: "
            "the workspace is over its budget and this window was used least recently; close "
            "windows you no longer need, or read_file these lines"
        )
        total -= len(item.text) - len(stub)
        item.text, item.full = stub, False
        item.window.status = "collapsed"
        item.window.shown = None
        collapsed += 1
    return collapsed


__all__ = ["RenderedWorkspace", "WorkspaceLayer", "budget_tokens"]
