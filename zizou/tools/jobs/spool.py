"""A command's whole output, kept so that what the model was not shown can be read later.

The bytes go to a file of their own (mode 0600, in a private directory) up to `MAX_KEPT_BYTES`;
the last `TAIL_BYTES` also stay in memory, so the end of a flood is never lost. Lines are counted
over all of it. For every 1 MiB block of the file the spool notes how many lines came before it,
so a range of lines is read from the block it starts in, never by scanning the file from the top.
Where no file can be made, the first `MEMORY_KEPT_BYTES` are kept in memory instead.

Writes come from the event loop, reads from any thread: the file is written with `os.write`
on an append-only descriptor and read with `os.pread`, so neither moves the other's position.
"""

from __future__ import annotations

import contextlib
import os
import threading
from array import array
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

BLOCK = 1 << 20
READ_BYTES = 64 << 10  # read at a time, from the start of a line's block
MAX_KEPT_BYTES = 64 << 20
MEMORY_KEPT_BYTES = 4 << 20
TAIL_BYTES = 256 << 10
LINE_BYTES = 256 << 10  # of one line, what a read returns at most (the rest is counted)


@dataclass(frozen=True)
class Line:
    number: int  # from 1
    data: bytes  # without its newline; at most LINE_BYTES
    length: int  # the whole line's length in bytes


class OutputSpool:
    """Every byte of one command's output, counted; the bytes themselves as the module says."""

    def __init__(self, path: Path | None = None, *, keep: bool = True) -> None:
        """Kept in the file `path` (made new), else in memory; `keep=False` only counts (and
        keeps the tail): for output that is read live and never again."""
        self.path = path
        self.size = 0  # bytes seen
        self.newlines = 0  # in all of them
        self.problem: str | None = None  # why the file could not be written, if it could not
        self._fd: int | None = None  # the file's write end, while the command runs
        self._memory = bytearray()  # the kept bytes, when there is no file
        self._kept = 0  # bytes in the file (or `_memory`)
        self._kept_newlines = 0
        self._block_lines = array("q", [0])  # newlines before each block of the kept bytes
        self._tail = bytearray()
        self._lock = threading.Lock()  # a read from a worker thread sees whole writes
        if path is not None:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_NOFOLLOW
            try:
                self._fd = os.open(path, flags, 0o600)
            except OSError as exc:
                self.problem = f"could not keep the output in {path}: {exc.strerror or exc}"
        self._in_file = self._fd is not None
        self._cap = (MAX_KEPT_BYTES if self._in_file else MEMORY_KEPT_BYTES) if keep else 0

    @property
    def lines(self) -> int:
        """How many lines the output has (a last line without a newline counts)."""
        return self.newlines + (1 if self.size and not self._tail.endswith(b"\n") else 0)

    @property
    def whole(self) -> bool:
        """Every byte is kept (nothing went past the cap)."""
        return self._kept == self.size

    def feed(self, data: bytes) -> None:
        with self._lock:
            newlines = data.count(b"\n")
            self.newlines += newlines
            self.size += len(data)
            self._tail += data
            if len(self._tail) > 2 * TAIL_BYTES:  # trimmed now and then, not at every chunk
                del self._tail[: len(self._tail) - TAIL_BYTES]
            room = self._cap - self._kept
            if room >= len(data):
                self._keep(data, newlines)
            elif room > 0:
                self._keep(data[:room])

    def _keep(self, data: bytes, newlines: int | None = None) -> None:
        """Keep `data` (which has `newlines`, when the caller counted them)."""
        offset = self._kept
        if self._fd is not None:
            try:
                os.write(self._fd, data)
            except OSError as exc:
                self.problem = f"could not keep the rest of the output: {exc.strerror or exc}"
                self._cap = self._kept  # nothing more is kept; the tail still is
                return
        elif not self._in_file:
            self._memory += data
        else:
            return  # closed
        self._kept += len(data)
        if newlines is not None and offset // BLOCK == (self._kept - 1) // BLOCK:
            self._kept_newlines += newlines  # within one block: counted once
            if self._kept % BLOCK == 0:
                self._block_lines.append(self._kept_newlines)
            return
        pos = 0
        while pos < len(data):
            boundary = (offset + pos) // BLOCK * BLOCK + BLOCK
            cut = min(len(data), boundary - offset)
            self._kept_newlines += data.count(b"\n", pos, cut)
            if offset + cut == boundary:
                self._block_lines.append(self._kept_newlines)
            pos = cut

    def _read(self, offset: int, size: int) -> bytes:
        if not self._in_file:
            return bytes(self._memory[offset : offset + size])
        assert self.path is not None
        with open(self.path, "rb") as file:  # its own position: never the writer's
            return os.pread(file.fileno(), size, offset)

    def _snapshot(self) -> _Snapshot:
        with self._lock:
            lines = self.lines
            whole = self._kept == self.size
            return _Snapshot(
                self.size,
                self.newlines,
                lines,
                self._kept,
                lines if whole else self._kept_newlines,
                self._block_lines[:],
                bytes(self._tail[-TAIL_BYTES:]),
            )

    def read(self, start: int, end: int) -> Iterator[Line]:
        """Lines `start` to `end` (from 1, both included) as far as they are kept: from the
        kept bytes, then from the tail in memory."""
        snap = self._snapshot()
        yield from self._from_kept(snap, start, min(end, snap.kept_lines))
        if end > snap.kept_lines:
            yield from snap.tail_lines(max(start, snap.kept_lines + 1), end)

    def _from_kept(self, snap: _Snapshot, start: int, end: int) -> Iterator[Line]:
        if start > end:
            return
        blocks = snap.blocks
        block = next((i for i in range(len(blocks) - 1, -1, -1) if blocks[i] < start - 1), 0)
        number, offset = blocks[block] + 1, block * BLOCK  # the line the block starts in
        data, length, pending = bytearray(), 0, b""
        while offset < snap.kept:
            raw = self._read(offset, min(READ_BYTES, snap.kept - offset))
            if not raw:
                return
            offset += len(raw)
            parts = (pending + raw).split(b"\n")
            pending = parts.pop()  # no newline yet: the line goes on in the next block
            for part in parts:
                if number >= start:
                    yield _line(number, data + part, length + len(part))
                number, data, length = number + 1, bytearray(), 0
                if number > end:
                    return
            if len(pending) > LINE_BYTES:  # a very long line: keep its start, count the rest
                data += pending[: max(0, LINE_BYTES - len(data))]
                length, pending = length + len(pending), b""
        if (pending or length) and number >= start and snap.kept == snap.size:
            yield _line(number, data + pending, length + len(pending))  # no final newline

    def last(self, count: int) -> list[Line]:
        """The last `count` lines that the tail in memory holds whole."""
        snap = self._snapshot()
        return list(snap.tail_lines(snap.lines - count + 1, snap.lines))

    def close(self) -> None:
        """Nothing more is written: the file's write end is closed; it can still be read."""
        with self._lock:
            if self._fd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._fd)
                self._fd = None

    def remove(self) -> None:
        self.close()
        if self.path is not None and self._in_file:
            with contextlib.suppress(OSError):
                self.path.unlink()


@dataclass(frozen=True)
class _Snapshot:
    """The spool's counts at one moment, so a read sees one consistent output."""

    size: int
    newlines: int
    lines: int
    kept: int
    kept_lines: int  # the lines the kept bytes hold whole
    blocks: array[int]
    tail: bytes

    @property
    def first_tail_line(self) -> int:
        """The first line the tail in memory holds whole (it may start inside a line)."""
        if len(self.tail) == self.size:
            return 1
        return self.newlines - self.tail.count(b"\n") + 2

    def tail_lines(self, start: int, end: int) -> Iterator[Line]:
        """Lines `start` to `end` as far as the tail holds them whole; split from its end, so
        a few last lines cost no more than themselves."""
        start, end = max(start, self.first_tail_line), min(end, self.lines)
        if start > end:
            return
        tail = self.tail[:-1] if self.tail.endswith(b"\n") else self.tail
        parts = tail.rsplit(b"\n", self.lines - start + 1)  # the last part is the last line
        first = self.lines - len(parts) + 1  # the number of parts[0]
        for number in range(max(start, first), end + 1):
            part = parts[number - first]
            yield _line(number, part, len(part))


def _line(number: int, data: bytes | bytearray, length: int) -> Line:
    return Line(number, bytes(data[:LINE_BYTES]), length)


__all__ = ["LINE_BYTES", "MAX_KEPT_BYTES", "TAIL_BYTES", "Line", "OutputSpool"]
