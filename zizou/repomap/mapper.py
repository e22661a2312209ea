"""The RepoMap: keeps a project's tags warm between renders and assembles a map on request.

The prompt renders the map at every step, so the warm path matters most: list the files (git),
stat the sources, and re-parse only those whose size or mtime moved (or whose mtime is too recent
to trust, in which case the content digest decides). The ranking graph is rebuilt only when some
tags changed, and a map already rendered for the same files and the same request is served from
a memo, in memory and in `.zizou/cache/`, without loading the tokenizer.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from zizou import __version__
from zizou.paths import PROJECT_DIR_NAME, project_dir
from zizou.repomap import cache
from zizou.repomap.files import ProjectFiles, list_project_files
from zizou.repomap.graph import Graph, build_graph
from zizou.repomap.mentions import find_mentions
from zizou.repomap.parse import Entry, ParseJob, default_workers, read_entries
from zizou.repomap.request import MapRequest, MapResult, MapStats
from zizou.repomap.select import select_map
from zizou.repomap.tags import tags_fingerprint
from zizou.repomap.tokens import TokenCounter, default_counter, default_counter_name

MAP_VERSION = 1  # bump when ranking or rendering changes: remembered maps are then stale
RACY_NS = 2_000_000_000  # an mtime this close to when we looked may hide a same-tick edit
MEMO_SIZE = 16


@dataclass
class _State:
    entries: dict[str, Entry]
    from_disk: bool = True  # entries came from the cache file and may be of a stale shape
    generation: int = 0
    graph: Graph | None = None
    graph_generation: int = -1


class RepoMap:
    """One project's map. Thread-safe; cheap to call again when little has changed."""

    def __init__(
        self,
        root: Path,
        *,
        cache_dir: Path | None = None,
        persist: bool = True,
        workers: int | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.root = root.resolve()
        self._own_cache_dir = persist and cache_dir is None  # `.zizou/cache`, made on first save
        self.cache_dir = (cache_dir or self.root / PROJECT_DIR_NAME / "cache") if persist else None
        self.workers = workers if workers is not None else default_workers()
        self._counter = counter
        self._lock = threading.Lock()
        self._state: _State | None = None
        self._memo: dict[str, tuple[MapResult, int]] = {}  # key -> (result, written_ns)
        self._disk_memo: dict[str, cache.Render] | None = None

    def render(self, request: MapRequest) -> MapResult:
        with self._lock:
            return self._render(request)

    def _render(self, request: MapRequest) -> MapResult:
        started = time.perf_counter()
        files = list_project_files(self.root)
        listed = time.perf_counter()
        key = self._request_key(files, request)
        remembered = self._remembered(key, files)
        if remembered is not None:
            stats = remembered.stats.with_counts(
                parsed=0,
                cache_hits=len(files.sources),
                memo=True,
                parse_s=0.0,
                rank_s=0.0,
                render_s=0.0,
            )
            result = MapResult(remembered.text, stats)
        else:
            try:
                result = self._build(request, files)
            except (TypeError, ValueError, IndexError, KeyError):
                if self._state is None or not self._state.from_disk:
                    raise
                self._state = _State({}, from_disk=False)  # a cache of the wrong shape: start over
                result = self._build(request, files)
            self._remember(key, result)
        stats = result.stats.with_counts(
            files=len(files.sources) + len(files.others),
            sources=len(files.sources),
            workers=self.workers,
            list_s=listed - started,
        )
        return MapResult(result.text, stats)

    def _build(self, request: MapRequest, files: ProjectFiles) -> MapResult:
        started = time.perf_counter()
        state = self._state or self._load_state()
        parsed, hits = self._refresh(state, files)
        refreshed = time.perf_counter()
        graph = self._graph(state)
        graphed = time.perf_counter()
        counter = self._counter or default_counter()
        loaded = time.perf_counter()
        paths = [f.path for f in files.sources] + list(files.others)
        mentions = find_mentions(request.message, paths)
        result = select_map(self.root, graph, files, request, mentions, counter)
        stats = result.stats.with_counts(
            parsed=parsed,
            cache_hits=hits,
            parse_s=refreshed - started,
            rank_s=result.stats.rank_s + (graphed - refreshed),
            render_s=result.stats.render_s + (loaded - graphed),
        )
        return MapResult(result.text, stats)

    def _request_key(self, files: ProjectFiles, request: MapRequest) -> str:
        digest = hashlib.blake2b(digest_size=16)
        digest.update(f"{__version__}\0{MAP_VERSION}\0{tags_fingerprint()}".encode())
        for f in files.sources:
            digest.update(f"{f.path}\0{f.size}\0{f.mtime_ns}\n".encode())
        digest.update("\0".join(files.others).encode())
        counter = self._counter.name if self._counter else default_counter_name()
        digest.update(f"\1{request.cache_key()}\1{counter}".encode())
        return digest.hexdigest()

    def _remembered(self, key: str, files: ProjectFiles) -> MapResult | None:
        """A map rendered before for the same files and request, unless a file changed so
        recently (within RACY_NS of that render) that an edit might hide behind an equal mtime."""
        if key in self._memo:
            result, written_ns = self._memo[key]
        else:
            stored = self._disk_memos().get(key)
            if stored is None:
                return None
            text, written_ns, counts, tokenizer = stored
            if len(counts) != len(MapStats.MEMO_FIELDS):
                return None
            result = MapResult(text, MapStats.from_memo(counts, tokenizer))
        newest = max((f.mtime_ns for f in files.sources), default=0)
        return result if newest < written_ns - RACY_NS else None

    def _disk_memos(self) -> dict[str, cache.Render]:
        if self._disk_memo is None:
            self._disk_memo = cache.load_renders(self.cache_dir) if self.cache_dir else {}
        return self._disk_memo

    def _remember(self, key: str, result: MapResult) -> None:
        now = time.time_ns()
        recent = list(self._memo.items())[-(MEMO_SIZE - 1) :]
        self._memo = {**dict(recent), key: (result, now)}
        stats = result.stats
        memo = {**self._disk_memos(), key: (result.text, now, stats.memo_counts(), stats.tokenizer)}
        self._disk_memo = dict(sorted(memo.items(), key=lambda kv: (kv[1][1], kv[0]))[-MEMO_SIZE:])
        directory = self._writable_cache()
        if directory is not None:
            cache.save_renders(directory, self._disk_memo)

    def _writable_cache(self) -> Path | None:
        """The cache dir, after making `.zizou/` (with its .gitignore) when it is ours."""
        if self.cache_dir is not None and self._own_cache_dir:
            try:
                project_dir(self.root)
            except OSError:
                return None  # a read-only project: no cache, still a map
        return self.cache_dir

    def _load_state(self) -> _State:
        entries = cache.load_entries(self.cache_dir, tags_fingerprint()) if self.cache_dir else {}
        self._state = _State(entries, from_disk=bool(entries))
        return self._state

    def _refresh(self, state: _State, files: ProjectFiles) -> tuple[int, int]:
        """Bring the entries up to date with the files; (parsed or re-read, trusted as cached)."""
        jobs: list[ParseJob] = []
        for file in files.sources:
            known = state.entries.get(file.path)
            if not (
                known is not None
                and known.size == file.size
                and known.mtime_ns == file.mtime_ns
                and file.mtime_ns < known.checked_ns - RACY_NS
                and _same_language(known, file.language)
            ):
                jobs.append(ParseJob(file, known))
        # A cold map parses in a pool; this process loads the tokenizer meanwhile.
        warm_up = None if self._counter else default_counter
        fresh = read_entries(self.root, jobs, self.workers, while_waiting=warm_up) if jobs else {}
        listed = {file.path for file in files.sources}
        gone = sorted(path for path in state.entries if path not in listed)
        changed = bool(gone)
        moved = False  # a file's size or mtime moved: worth saving even with the same tags
        for path in gone:
            del state.entries[path]
        for job in jobs:
            entry = fresh.get(job.file.path)
            changed = changed or not _same_tags(entry, job.known)
            moved = moved or not _same_stat(entry, job.known)
            if entry is None:
                state.entries.pop(job.file.path, None)
            else:
                state.entries[job.file.path] = entry
        if changed:
            state.generation += 1
        # A recent file re-read unchanged is not worth rewriting the cache for at every step.
        directory = self._writable_cache() if changed or moved else None
        if directory is not None:
            cache.save_entries(directory, tags_fingerprint(), state.entries)
        return len(jobs), len(files.sources) - len(jobs)

    def _graph(self, state: _State) -> Graph:
        if state.graph is None or state.graph_generation != state.generation:
            tags = {path: e.tags for path, e in state.entries.items() if e.tags is not None}
            state.graph = build_graph(tags)
            state.graph_generation = state.generation
        return state.graph


def _same_tags(entry: Entry | None, known: Entry | None) -> bool:
    if entry is None or known is None:
        return entry is known
    return entry.digest == known.digest and entry.tags == known.tags


def _same_stat(entry: Entry | None, known: Entry | None) -> bool:
    if entry is None or known is None:
        return entry is known
    return (entry.size, entry.mtime_ns) == (known.size, known.mtime_ns)


def _same_language(entry: Entry, language: str) -> bool:
    return entry.tags is None or entry.tags.language == language


__all__ = ["RepoMap"]
