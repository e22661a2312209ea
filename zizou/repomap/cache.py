"""The repo map's tags, persisted in `.zizou/cache/` so a new process re-parses only what changed.

The file is a small header (magic, format version, CRC32 of the payload) and a `marshal`led
payload of plain tuples: fast to load, and, unlike pickle, unable to run code. Any doubt about the
file (missing, truncated, another Python, a failed check, a wrong shape) means an empty cache and
a rebuild, never an error. Writes go to a temporary file that replaces the old one, so concurrent
zizou processes each leave a whole file behind (the last writer wins).
"""

from __future__ import annotations

import marshal
import os
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

from zizou.repomap.parse import Entry
from zizou.repomap.tags import FileTags

MAGIC = b"ZZRMAP"
FORMAT = 1
TAGS_FILE = "repomap-tags.bin"
RENDERS_FILE = "repomap-renders.bin"
_HEADER = len(MAGIC) + 2 + 4


def load_entries(directory: Path, fingerprint: str) -> dict[str, Entry]:
    """The cached entries by path; empty when the cache is absent or not to be trusted.

    `fingerprint` names the queries that produced the tags: other queries, other tags.
    """
    payload = _load(directory / TAGS_FILE)
    if not isinstance(payload, dict) or payload.get("fingerprint") != fingerprint:
        return {}
    stored = payload.get("entries")
    if not isinstance(stored, dict):
        return {}
    entries: dict[str, Entry] = {}
    for path, raw in stored.items():
        entry = _entry(raw)
        if not isinstance(path, str) or entry is None:
            return {}  # a wrong shape anywhere: trust none of it
        entries[path] = entry
    return entries


def save_entries(directory: Path, fingerprint: str, entries: dict[str, Entry]) -> None:
    stored = {path: _raw(entry) for path, entry in sorted(entries.items())}
    _save(directory / TAGS_FILE, {"fingerprint": fingerprint, "entries": stored})


Render = tuple[str, int, tuple[int, ...], str]  # text, written_ns, counts, tokenizer


def load_renders(directory: Path) -> dict[str, Render]:
    """Recent maps by request key."""
    payload = _load(directory / RENDERS_FILE)
    if not isinstance(payload, dict):
        return {}
    ok = all(isinstance(key, str) and _is_render(value) for key, value in payload.items())
    return dict(payload) if ok else {}


def save_renders(directory: Path, renders: dict[str, Render]) -> None:
    _save(directory / RENDERS_FILE, renders)


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


def _raw(entry: Entry) -> tuple[Any, ...]:
    tags = entry.tags
    packed = None if tags is None else (tags.language, tags.defs, tags.refs)
    return (entry.size, entry.mtime_ns, entry.digest, entry.checked_ns, packed)


def _entry(raw: object) -> Entry | None:
    if not (isinstance(raw, tuple) and len(raw) == 5):
        return None
    size, mtime_ns, digest, checked_ns, packed = raw
    if not (_ints(size, mtime_ns, checked_ns) and isinstance(digest, bytes)):
        return None
    if packed is None:
        return Entry(size, mtime_ns, digest, checked_ns, None)
    tags = _tags(packed)
    return None if tags is None else Entry(size, mtime_ns, digest, checked_ns, tags)


def _tags(packed: object) -> FileTags | None:
    """Shapes are checked down to the tuples; the CRC already vouches for the bytes."""
    if not (type(packed) is tuple and len(packed) == 3):
        return None
    language, defs, refs = packed
    if type(language) is str and type(defs) is tuple and type(refs) is tuple:
        return FileTags(language, defs, refs)
    return None


def _ints(*values: object) -> bool:
    return all(type(value) is int for value in values)


def _load(path: Path) -> object:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < _HEADER or not data.startswith(MAGIC):
        return None
    version = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 2], "big")
    crc = int.from_bytes(data[len(MAGIC) + 2 : _HEADER], "big")
    body = data[_HEADER:]
    if version != _version() or zlib.crc32(body) != crc:
        return None
    try:
        return marshal.loads(body)
    except (EOFError, ValueError, TypeError):
        return None


def _save(path: Path, payload: Any) -> None:
    """Write atomically; a cache that cannot be written is only a slower next start."""
    try:
        body = marshal.dumps(payload)
        header = MAGIC + _version().to_bytes(2, "big") + zlib.crc32(body).to_bytes(4, "big")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(header + body)
            Path(temp).replace(path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except (OSError, ValueError):
        pass


def _version() -> int:
    """Our format and the interpreter's marshal format change the cache's meaning together."""
    return FORMAT * 1000 + sys.version_info[0] * 100 + sys.version_info[1]


__all__ = ["Render", "load_entries", "load_renders", "save_entries", "save_renders"]
