"""The repo map's tags, persisted in `.zizou/cache/` so a new process re-parses only what changed.

Each file is a small header (magic, format version, CRC32 of the payload) and a `marshal`led
payload of plain tuples: fast to load, and, unlike pickle, unable to run code. Any doubt about a
file (missing, truncated, another Python, a failed check, a wrong shape) means an empty cache and
a rebuild, never an error. Writes go to a temporary file that replaces the old one, so concurrent
zizou processes each leave a whole file behind (the last writer wins). Given the project root,
files are read and written by fd from it without following symlinks (`zizou.confined`), so a
`.zizou/cache` the repository ships as a symlink is neither read nor written.

The tags file holds one row per file, its tags still packed (tags.pack_tags), and the ranking
graph built from them: a new process with nothing changed decodes neither, and ranks at once.
Beside it are the maps rendered recently and the token counts of their lines (tokens.py).

After a cold map of a large project the tags file is tens of megabytes (0.2 s to write for
spring-framework's 9.6k sources), and the map is ready before it: `save_tags_later` writes it in
a thread, so the map is handed back at once. The thread is no daemon: the interpreter, and
`start.exit_now`, wait for it at exit. A load of the same file, and the next write to it, wait
for the write before them, so a process never reads tags older than those it wrote.
"""

from __future__ import annotations

import logging
import marshal
import sys
import threading
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from zizou import confined
from zizou.errors import PathError
from zizou.repomap.graph import Graph, graph_fingerprint
from zizou.repomap.parse import Entry

MAGIC = b"ZZRMAP"
FORMAT = 3
TAGS_FILE = "repomap-tags.bin"
RENDERS_FILE = "repomap-renders.bin"
TOKENS_FILE = "repomap-tokens.bin"
_HEADER = len(MAGIC) + 2 + 4
MAX_FILE_BYTES = 1 << 30
log = logging.getLogger(__name__)


def load_tags(
    directory: Path, fingerprint: str, *, root: Path | None = None
) -> tuple[dict[str, Entry], Graph | None]:
    """The cached entries by path, and the graph of their tags if it was stored with them; empty
    when the cache is absent or not to be trusted.

    `fingerprint` names the queries that produced the tags: other queries, other tags. A graph
    built by other code (graph.graph_fingerprint) is dropped, and rebuilt from the tags.
    """
    wait_for_tags(directory)
    payload = _load(directory / TAGS_FILE, root)
    if not (type(payload) is tuple and len(payload) == 4 and payload[0] == fingerprint):
        return {}, None
    _, graph_key, rows, raw_graph = payload
    entries = _entries(rows)
    if not entries:
        return {}, None
    if graph_key != graph_fingerprint() or raw_graph is None:
        return entries, None
    try:
        return entries, Graph.from_raw(raw_graph)
    except ValueError:
        return entries, None


def save_tags(
    directory: Path,
    fingerprint: str,
    entries: dict[str, Entry],
    graph: Graph | None,
    *,
    root: Path | None = None,
) -> None:
    wait_for_tags(directory)
    _write_tags(directory, fingerprint, entries, graph, root)


def _write_tags(
    directory: Path,
    fingerprint: str,
    entries: dict[str, Entry],
    graph: Graph | None,
    root: Path | None,
) -> None:
    rows = tuple(
        (path, e.size, e.mtime_ns, e.digest, e.checked_ns, e.language, e.tags)
        for path, e in sorted(entries.items())
    )
    raw_graph = None if graph is None else graph.to_raw()
    _save(directory / TAGS_FILE, (fingerprint, graph_fingerprint(), rows, raw_graph), root)


def save_tags_later(
    directory: Path,
    fingerprint: str,
    entries: dict[str, Entry],
    graph: Graph | None,
    *,
    root: Path | None = None,
) -> None:
    """`save_tags` in a thread, after any write of the same file still running. The caller must
    not change `entries` before `wait_for_tags(directory)` has returned."""
    key = directory / TAGS_FILE
    with _writes_lock:
        before = _writes.get(key)
        write = partial(_write_tags, directory, fingerprint, entries, graph, root)
        thread = threading.Thread(
            target=_write_after,
            args=(before, write, directory),
            name="repomap-tags-write",
            daemon=False,  # even when rendered from a daemon thread: exit waits for it
        )
        _writes[key] = thread
        thread.start()


def wait_for_tags(directory: Path) -> None:
    """Return once the tags written to `directory` by `save_tags_later` are on disk."""
    key = directory / TAGS_FILE
    with _writes_lock:
        thread = _writes.get(key)
    if thread is not None:
        thread.join()
        with _writes_lock:
            if _writes.get(key) is thread:
                del _writes[key]


_writes: dict[Path, threading.Thread] = {}  # the last write begun, per tags file
_writes_lock = threading.Lock()


def _write_after(
    before: threading.Thread | None, write: Callable[[], None], directory: Path
) -> None:
    if before is not None:
        before.join()
    try:
        write()
    except Exception:  # on no screen: a cache not written is only a slower next start
        log.debug("the repo map's tags were not written to %s", directory, exc_info=True)


def _entries(rows: object) -> dict[str, Entry]:
    """Entries from stored rows; empty if any row is of the wrong shape (trust none of it)."""
    if type(rows) is not tuple:
        return {}
    entries: dict[str, Entry] = {}
    for row in rows:
        if not (type(row) is tuple and len(row) == 7):
            return {}
        path, size, mtime_ns, digest, checked_ns, language, tags = row
        if not (
            type(path) is str
            and _ints(size, mtime_ns, checked_ns)
            and type(digest) is bytes
            and type(language) is str
            and (tags is None or type(tags) is bytes)
        ):
            return {}
        entries[path] = Entry(size, mtime_ns, digest, checked_ns, language, tags)
    return entries


Render = tuple[str, int, tuple[int, ...], str]  # text, written_ns, counts, tokenizer


def load_renders(directory: Path, *, root: Path | None = None) -> dict[str, Render]:
    """Recent maps by request key."""
    payload = _load(directory / RENDERS_FILE, root)
    if not isinstance(payload, dict):
        return {}
    ok = all(isinstance(key, str) and _is_render(value) for key, value in payload.items())
    return dict(payload) if ok else {}


def save_renders(directory: Path, renders: dict[str, Render], *, root: Path | None = None) -> None:
    _save(directory / RENDERS_FILE, renders, root)


def load_token_counts(
    directory: Path, tokenizer: str, *, root: Path | None = None
) -> dict[bytes, int]:
    """Token counts of recently rendered lines by their digest (tokens.line_key), oldest
    first, if counted by `tokenizer`."""
    payload = _load(directory / TOKENS_FILE, root)
    if not (type(payload) is tuple and len(payload) == 2 and payload[0] == tokenizer):
        return {}
    counts = payload[1]
    if type(counts) is not dict:
        return {}
    ok = all(type(key) is bytes and type(tokens) is int for key, tokens in counts.items())
    return counts if ok else {}


def save_token_counts(
    directory: Path, tokenizer: str, counts: dict[bytes, int], *, root: Path | None = None
) -> None:
    _save(directory / TOKENS_FILE, (tokenizer, counts), root)


def _is_render(value: object) -> bool:
    return (
        isinstance(value, tuple)
        and len(value) == 4
        and type(value[0]) is str
        and type(value[1]) is int
        and isinstance(value[2], tuple)
        and _ints(*value[2])
        and type(value[3]) is str
    )


def _ints(*values: object) -> bool:
    return all(type(value) is int for value in values)


def _load(path: Path, root: Path | None = None) -> object:
    """The payload of a cache file read by fd from `root` (default: the file's own directory)
    without following symlinks; None for a file that is missing, unsafe or damaged."""
    try:
        data = confined.read_bytes(root or path.parent, path, MAX_FILE_BYTES)
    except (OSError, PathError):
        return None
    if len(data) < _HEADER or not data.startswith(MAGIC):
        return None
    version = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 2], "big")
    crc = int.from_bytes(data[len(MAGIC) + 2 : _HEADER], "big")
    body = memoryview(data)[_HEADER:]
    if version != _version() or zlib.crc32(body) != crc:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def _save(path: Path, payload: Any, root: Path | None = None) -> None:
    """Write atomically, by fd from `root` (default: the file's own directory) without following
    symlinks; a cache that cannot be written is only a slower next start."""
    try:
        body = marshal.dumps(payload)
        header = MAGIC + _version().to_bytes(2, "big") + zlib.crc32(body).to_bytes(4, "big")
        if root is None:
            path.parent.mkdir(parents=True, exist_ok=True)
        confined.atomic_write(
            root or path.parent, path, header + body, new_mode=0o600, durable=False
        )
    except (OSError, PathError, ValueError):
        pass


def _version() -> int:
    """Our format and the interpreter's marshal format change the cache's meaning together."""
    return FORMAT * 1000 + sys.version_info[0] * 100 + sys.version_info[1]


__all__ = [
    "Render",
    "load_renders",
    "load_tags",
    "load_token_counts",
    "save_renders",
    "save_tags",
    "save_tags_later",
    "save_token_counts",
    "wait_for_tags",
]
