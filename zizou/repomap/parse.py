"""Reading and parsing source files into cache entries, across cores when there are many.

A cold map of a large repository is mostly tree-sitter work, which scales with processes. Starting
a pool costs tens of milliseconds, so small batches are parsed in this process. Each entry records
what the file looked like when it was read (size, mtime, a content digest, and when we looked) so
the cache can decide later whether it still holds.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path

from zizou.repomap.files import SourceFile
from zizou.repomap.tags import FileTags, extract_tags, is_generated

PARALLEL_MIN_FILES = 48  # below this a pool costs more than it saves
BATCHES_PER_WORKER = 8
BINARY_SCAN_BYTES = 8192


@dataclass(frozen=True, slots=True)
class Entry:
    """One file as last read: the cache trusts it while size and mtime still match."""

    size: int
    mtime_ns: int
    digest: bytes  # blake2b-128 of the content
    checked_ns: int  # wall-clock time just before the file was stat'ed and read
    tags: FileTags | None  # None: binary or generated, so left out of the map


@dataclass(frozen=True)
class ParseJob:
    file: SourceFile
    known: Entry | None  # a cached entry whose content may still be current


def digest_of(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def read_entry(root: Path, job: ParseJob) -> Entry | None:
    """The entry for one file, re-using `job.known` when the content is unchanged.

    None when the file cannot be read (it went away since it was listed).
    """
    checked_ns = time.time_ns()
    path = root / job.file.path
    try:
        info = path.stat()
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    digest = digest_of(data)
    known = job.known
    if known is not None and known.digest == digest and _same_language(known, job.file):
        return replace(known, size=info.st_size, mtime_ns=info.st_mtime_ns, checked_ns=checked_ns)
    return Entry(info.st_size, info.st_mtime_ns, digest, checked_ns, _tags(job.file, data))


def _same_language(entry: Entry, file: SourceFile) -> bool:
    return entry.tags is None or entry.tags.language == file.language


def _tags(file: SourceFile, data: bytes) -> FileTags | None:
    if b"\0" in data[:BINARY_SCAN_BYTES] or is_generated(data):
        return None
    try:
        return extract_tags(file.language, data)
    except Exception:  # a grammar bug must cost one file, not the map
        return None


def read_entries(
    root: Path,
    jobs: Sequence[ParseJob],
    workers: int,
    parallel_min: int = PARALLEL_MIN_FILES,
    while_waiting: Callable[[], object] | None = None,
) -> dict[str, Entry]:
    """Entries for `jobs` by path; files that could not be read are absent.

    `while_waiting` runs in this process while a pool parses (loading the tokenizer, say).
    """
    if workers > 1 and len(jobs) >= parallel_min:
        try:
            return _read_in_pool(root, jobs, workers, while_waiting)
        except (OSError, BrokenProcessPool, RuntimeError):
            pass  # no processes to be had (sandbox, limits): parse here instead
    return _read_batch(root, jobs)


def _read_batch(root: Path, jobs: Sequence[ParseJob]) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    for job in jobs:
        entry = read_entry(root, job)
        if entry is not None:
            found[job.file.path] = entry
    return found


def _read_in_pool(
    root: Path,
    jobs: Sequence[ParseJob],
    workers: int,
    while_waiting: Callable[[], object] | None,
) -> dict[str, Entry]:
    size = max(8, -(-len(jobs) // (workers * BATCHES_PER_WORKER)))
    batches = [list(jobs[i : i + size]) for i in range(0, len(jobs), size)]
    found: dict[str, Entry] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        parts = pool.map(_read_batch, [root] * len(batches), batches)  # submits every batch
        if while_waiting is not None:
            while_waiting()
        for part in parts:
            found.update(part)
    return found


def _context() -> multiprocessing.context.BaseContext:
    """fork is cheapest, but forking a process that runs other threads can deadlock a child."""
    if threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


__all__ = ["Entry", "ParseJob", "default_workers", "digest_of", "read_entries", "read_entry"]
