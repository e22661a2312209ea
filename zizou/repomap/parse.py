"""Reading and parsing source files into cache entries, across cores when there are many.

A cold map of a large repository is mostly tree-sitter work, which scales with processes. Starting
a pool costs tens of milliseconds, so small batches are parsed in this process. A pool gets
batches of about equal bytes, one language each, in path order (_batches), and each batch's
entries are handed on as soon as it is done, so the caller folds them in while the pool parses
the rest. Each entry records what the file looked like when it was read (size, mtime, a content
digest, and when we looked) so the cache can decide later whether it still holds; its tags travel
and are stored packed (tags.pack_tags): a few hundred bytes a file, cheap to pickle back.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, replace
from pathlib import Path

from zizou.errors import PathError
from zizou.repomap.files import SourceFile, SourceReader
from zizou.repomap.tags import FileTags, extract_tags, is_generated, pack_tags, unpack_tags

PARALLEL_MIN_FILES = 48  # below this a pool costs more than it saves
BATCHES_PER_WORKER = 24
LANGUAGE_SHARE = 0.25
BINARY_SCAN_BYTES = 8192
RACY_NS = 2_000_000_000  # an mtime this close to when we looked may hide a same-tick edit


@dataclass(frozen=True, slots=True)
class Entry:
    """One file as last read: the cache trusts it while size and mtime still match."""

    size: int
    mtime_ns: int
    digest: bytes  # blake2b-128 of the content
    checked_ns: int  # wall-clock time just before the file was stat'ed and read
    language: str
    tags: bytes | None  # tags.pack_tags; None: binary or generated, so left out of the map

    def file_tags(self) -> FileTags | None:
        return None if self.tags is None else unpack_tags(self.language, self.tags)


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
    with SourceReader(root) as reader:
        return _read_entry(reader, job)


def _read_entry(reader: SourceReader, job: ParseJob) -> Entry | None:
    checked_ns = time.time_ns()
    try:
        info, data = reader.read(job.file.path)
    except (OSError, PathError):
        return None
    digest = digest_of(data)
    known = job.known
    language = job.file.language
    if known is not None and known.digest == digest and known.language == language:
        return replace(known, size=info.st_size, mtime_ns=info.st_mtime_ns, checked_ns=checked_ns)
    tags = _tags(language, data)
    packed = None if tags is None else pack_tags(tags)
    return Entry(info.st_size, info.st_mtime_ns, digest, checked_ns, language, packed)


def _tags(language: str, data: bytes) -> FileTags | None:
    if b"\0" in data[:BINARY_SCAN_BYTES] or is_generated(data):
        return None
    try:
        return extract_tags(language, data)
    except Exception:  # a grammar bug must cost one file, not the map
        return None


def read_entries(
    root: Path,
    jobs: Sequence[ParseJob],
    workers: int,
    parallel_min: int = PARALLEL_MIN_FILES,
    while_waiting: Callable[[], object] | None = None,
    each: Callable[[dict[str, Entry]], object] | None = None,
) -> dict[str, Entry]:
    """Entries for `jobs` by path; files that could not be read are absent.

    `while_waiting` runs in this process while a pool parses (loading the tokenizer, say), and
    `each` on every batch of entries as it arrives, while the pool parses the rest.
    """
    if workers > 1 and len(jobs) >= parallel_min:
        try:
            return _read_in_pool(root, jobs, workers, while_waiting, each)
        except (OSError, BrokenProcessPool, RuntimeError):
            pass  # no processes to be had (sandbox, limits): parse here instead
    found = _read_batch(root, jobs)
    if each is not None:
        each(found)
    return found


def _read_batch(root: Path, jobs: Sequence[ParseJob]) -> dict[str, Entry]:
    found: dict[str, Entry] = {}
    with SourceReader(root) as reader:
        for job in jobs:
            entry = _read_entry(reader, job)
            if entry is not None:
                found[job.file.path] = entry
    return found


def _read_in_pool(
    root: Path,
    jobs: Sequence[ParseJob],
    workers: int,
    while_waiting: Callable[[], object] | None,
    each: Callable[[dict[str, Entry]], object] | None,
) -> dict[str, Entry]:
    batches = _batches(jobs, workers)
    found: dict[str, Entry] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        parts = [pool.submit(_read_batch, root, batch) for batch in batches]
        if while_waiting is not None:
            while_waiting()
        for done in as_completed(parts):  # as each batch is done, not in the order sent
            part = done.result()
            found.update(part)
            if each is not None:
                each(part)
    return found


def _batches(jobs: Sequence[ParseJob], workers: int) -> list[list[ParseJob]]:
    """Batches of about equal bytes, BATCHES_PER_WORKER per worker, biggest first: the pool hands
    them out in order, so the cores finish within a small batch of each other. A batch holds
    one language, and a language with little code (under LANGUAGE_SHARE of the bytes per worker)
    one batch, so only one worker pays for its grammar and queries (tens of ms for C++). Files go
    in path order, so a batch reads a few directories (SourceReader opens each once)."""
    total = sum(job.file.size for job in jobs)
    target = max(1, total // (workers * BATCHES_PER_WORKER))
    by_language: dict[str, list[ParseJob]] = {}
    for job in sorted(jobs, key=lambda job: job.file.path):
        by_language.setdefault(job.file.language, []).append(job)
    batches: list[tuple[int, list[ParseJob]]] = []
    for language in sorted(by_language):
        size = sum(job.file.size for job in by_language[language])
        limit = size if size * workers <= total * LANGUAGE_SHARE else target
        batch: list[ParseJob] = []
        held = 0
        for job in by_language[language]:
            batch.append(job)
            held += job.file.size
            if held >= limit:
                batches.append((held, batch))
                batch, held = [], 0
        if batch:
            batches.append((held, batch))
    batches.sort(key=lambda sized: -sized[0])  # stable: equal sizes keep language order
    return [batch for _, batch in batches]


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


__all__ = [
    "RACY_NS",
    "Entry",
    "ParseJob",
    "default_workers",
    "digest_of",
    "read_entries",
    "read_entry",
]
