"""A deck run's trace: `.zizou/traces/<runId>.jsonl`, one JSON event a line, for `zizou trace`.

Each event (run.start, action.start, model.request, tool.result, ...) says who did what and when,
not what was said: every string is redacted and cut to 500 characters, so the trace never holds
a transcript or a key. The file is private (0600, in a 0700 directory), created fresh and opened
by fd through `zizou.confined`, so a `.zizou` or `traces` the repository ships as a symlink is
never written through; it is bounded by `max_bytes`. Writing is best effort: a failure turns the
file off and says why once, in `problem`, while the sink (stream-json output) keeps every event.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import secrets
import stat
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from zizou import confined
from zizou.errors import PathError, UsageError
from zizou.paths import PROJECT_DIR_NAME, project_dir

TRACES_DIR = f"{PROJECT_DIR_NAME}/traces"
SUFFIX = ".jsonl"
FILE_MODE = 0o600
DIR_MODE = 0o700
MAX_STRING_CHARS = 500
DEFAULT_MAX_BYTES = 5 * 1024 * 1024
MAX_READ_BYTES = 64 * 1024 * 1024  # what `read_trace` reads of one file at most
RUN_ID = re.compile(r"[0-9a-z-]{1,64}")
_MARKER_ROOM = 512  # bytes kept free for the final trace.truncated line
_OPEN_FLAGS = os.O_CREAT | os.O_EXCL | os.O_WRONLY  # confined adds O_NOFOLLOW, O_NONBLOCK
_RESERVED = ("type", "runId", "ts")

Event = dict[str, Any]


def new_run_id() -> str:
    """A fresh run id, ordered by its UTC start time and safe as a file name:
    `20261125-142501-a1b2c3`."""
    return time.strftime("%Y%m%d-%H%M%S-", time.gmtime()) + secrets.token_hex(3)


def is_run_id(text: str) -> bool:
    return RUN_ID.fullmatch(text) is not None


def trace_path(run_id: str) -> str:
    """The trace of `run_id`, relative to the project root (the id is checked by the caller)."""
    return f"{TRACES_DIR}/{run_id}{SUFFIX}"


def now_iso() -> str:
    """The current UTC time, to the millisecond: `2026-11-25T14:25:01.123Z`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class Trace:
    """The events of one deck run, written to its trace file and handed to `sink`."""

    def __init__(
        self,
        root: Path,
        run_id: str,
        *,
        sink: Callable[[Event], None] | None = None,
        redact: Callable[[str], str] | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        persist: bool = True,
    ) -> None:
        self.root = root
        self.run_id = run_id
        self.sink = sink
        self.redact = redact
        self.max_bytes = max_bytes
        self.problem: str | None = None  # why the file is off, if it is
        self._fd: int | None = None
        self._on = persist  # still writing (or yet to open) the file
        self._written = 0
        self._lock = threading.RLock()  # events come from concurrent actions' threads
        if persist and not is_run_id(run_id):
            self._fail(f"{run_id[:80]!r} is not a run id ([0-9a-z-], at most 64 characters)")

    @property
    def path(self) -> Path:
        return self.root / trace_path(self.run_id)

    def event(self, kind: str, /, **fields: Any) -> Event:
        """Record one event: `{"type", "runId", "ts", **fields}`, strings redacted and cut.

        Writing never raises; what the sink raises reaches the caller.
        """
        record: Event = {"type": kind, "runId": self.run_id, "ts": now_iso()}
        for key, value in fields.items():
            if key not in _RESERVED:
                record[key] = self._clean(value)
        with self._lock:
            if self._on:
                self._safely(lambda: self._write(record))
            if self.sink is not None:
                self.sink(record)
        return record

    def close(self) -> None:
        with self._lock:
            self._on = False
            fd, self._fd = self._fd, None
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def __enter__(self) -> Trace:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # Cleaning.

    def _clean(self, value: Any) -> Any:
        """`value` as JSON can hold it, each string redacted and at most 500 characters."""
        if value is None or isinstance(value, bool | int):
            return value
        if isinstance(value, float):
            return value if math.isfinite(value) else str(value)
        if isinstance(value, dict):
            return {str(key): self._clean(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self._clean(item) for item in value]
        text = value if isinstance(value, str) else str(value)
        if self.redact is not None:
            try:
                text = self.redact(text)
            except Exception:  # what could not be redacted is not kept
                text = "[withheld: redaction failed]"
        if len(text) > MAX_STRING_CHARS:
            text = text[: MAX_STRING_CHARS - 1] + "…"
        return text

    # Writing.

    def _open(self) -> int:
        project_dir(self.root)  # `.zizou` a real directory, with its .gitignore
        dir_fd = confined.open_dir_fd(self.root, TRACES_DIR, create=True)
        try:
            os.fchmod(dir_fd, DIR_MODE)
        finally:
            os.close(dir_fd)
        fd = confined.open_file(self.root, trace_path(self.run_id), _OPEN_FLAGS, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)  # whatever the umask
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _write(self, record: Event) -> None:
        if self._fd is None:
            self._fd = self._open()
        line = _line(record)
        if self._written + len(line) > self.max_bytes - _MARKER_ROOM:
            marker = {"type": "trace.truncated", "runId": self.run_id, "ts": record["ts"]}
            marker |= {"maxBytes": self.max_bytes, "firstDropped": record["type"][:40]}
            _write_all(self._fd, _line(marker))
            self.close()
            return
        _write_all(self._fd, line)
        self._written += len(line)

    def _safely(self, action: Callable[[], None]) -> None:
        try:
            action()
        except PathError as exc:  # a symlink, a FIFO, a file already there
            self._fail(f"{self.path} cannot be written safely ({exc})")
        except OSError as exc:
            self._fail(f"could not write {self.path}: {exc.strerror or exc}")
        except Exception as exc:  # a bug in the trace must not end the run either
            self._fail(f"the trace failed ({type(exc).__name__})")

    def _fail(self, message: str) -> None:
        if self.problem is None:
            self.problem = f"{message}; the trace of this run is off"
        self.close()


def _line(record: Event) -> bytes:
    # ASCII only: a control or lone surrogate in a value is escaped, never printed raw.
    return (json.dumps(record, ensure_ascii=True) + "\n").encode("ascii")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


# Reading.


def trace_ids(root: Path) -> list[str]:
    """The run ids with a trace file, oldest first; none when the folder is missing or unsafe."""
    try:
        if confined.stat(root, TRACES_DIR) is None:
            return []
        entries = confined.scandir(root, TRACES_DIR)
    except PathError:
        return []
    names = (entry.name for entry in entries if entry.is_file and entry.name.endswith(SUFFIX))
    return sorted(stem for name in names if is_run_id(stem := name[: -len(SUFFIX)]))


def prune_traces(root: Path, keep: int = 200) -> int:
    """Remove the oldest trace files beyond the newest `keep`; how many were removed.

    Only regular files named like a trace go; a symlink is never followed nor removed.
    """
    doomed = trace_ids(root)[: -max(keep, 0) or None]
    if not doomed:
        return 0
    removed = 0
    try:
        dir_fd = confined.open_dir_fd(root, TRACES_DIR)
    except PathError:
        return 0
    try:
        for run_id in doomed:
            name = run_id + SUFFIX
            with contextlib.suppress(OSError):
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISREG(info.st_mode):
                    os.unlink(name, dir_fd=dir_fd)
                    removed += 1
    finally:
        os.close(dir_fd)
    return removed


def read_trace(root: Path, run_id: str) -> list[Event]:
    """The events of run `run_id`, in order; a line that is not a JSON object is skipped.

    UsageError for an id that is not one (it never reaches the file system) or a missing trace.
    """
    if not is_run_id(run_id):
        raise UsageError(
            f"{run_id[:80]!r} is not a run id (letters a-z, digits and '-'): "
            "`zizou trace` lists the recent runs"
        )
    path = trace_path(run_id)
    try:
        if confined.stat(root, path) is None:
            raise UsageError(
                f"no trace of run {run_id} in {root / TRACES_DIR}: "
                "`zizou trace` lists the recent runs"
            )
        data = confined.read_bytes(root, path, MAX_READ_BYTES)
    except PathError as err:
        raise UsageError(f"the trace of run {run_id} cannot be read safely: {err}") from err
    return parse_lines(data)


def trace_ends(root: Path, run_id: str, span: int = 64 * 1024) -> tuple[Event | None, Event | None]:
    """The first and the last event of a trace (run.start, and run.end once it ended), read
    from its first and last `span` bytes only; (None, None) when it cannot be read."""
    try:
        fd = confined.open_file(root, trace_path(run_id), os.O_RDONLY)
    except PathError:
        return None, None
    try:
        head = confined.read_fd(fd, span)
        size = os.fstat(fd).st_size
        os.lseek(fd, max(size - span, 0), os.SEEK_SET)
        tail = confined.read_fd(fd, span)
    except OSError:
        return None, None
    finally:
        os.close(fd)
    first = parse_lines(head.split(b"\n", 1)[0])
    last = parse_lines(tail.rstrip(b"\n").rsplit(b"\n", 1)[-1])
    return (first[0] if first else None), (last[0] if last else None)


def parse_lines(data: bytes) -> list[Event]:
    events: list[Event] = []
    for raw in data.decode("utf-8", errors="replace").splitlines():
        try:
            event = json.loads(raw)
        except ValueError:
            continue  # a line cut short by a crash
        if isinstance(event, dict):
            events.append(event)
    return events


__all__ = [
    "DEFAULT_MAX_BYTES",
    "TRACES_DIR",
    "Event",
    "Trace",
    "is_run_id",
    "new_run_id",
    "parse_lines",
    "prune_traces",
    "read_trace",
    "trace_ends",
    "trace_ids",
    "trace_path",
]
