"""The RepoMap: keeps a project's tags warm between renders and assembles a map on request.

The prompt renders the map at every step, so the warm path matters most: check the kept file
list (listing.py: the project is listed again only when a directory or an ignore rule moved),
stat the sources, and re-parse only those whose size or mtime moved (or whose mtime is too recent
to trust, in which case the content digest decides). The ranking graph is rebuilt only when some
tags changed (and stored with them, so a new process does not rebuild it), and a map already
rendered for the same files and the same request is served from a memo, in memory and in
`.zizou/cache/`. The tokenizer is loaded only to count a line no earlier map had (tokens.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from zizou.collector import paused_collector
from zizou.paths import PROJECT_DIR_NAME, project_dir
from zizou.repomap import cache
from zizou.repomap.files import ProjectFiles
from zizou.repomap.graph import Graph
from zizou.repomap.graph_build import GraphBuilder
from zizou.repomap.listing import ProjectListing
from zizou.repomap.memo import MapMemo
from zizou.repomap.mentions import find_mentions
from zizou.repomap.parse import RACY_NS, Entry, ParseJob, default_workers, read_entries
from zizou.repomap.rank import Ranker
from zizou.repomap.request import MapRequest, MapResult
from zizou.repomap.select import select_map
from zizou.repomap.signatures import SignatureCache
from zizou.repomap.tags import tags_fingerprint
from zizou.repomap.tokens import LineCounter, TokenCounter, default_counter, default_counter_name

MAP_VERSION = 3  # bump when ranking or rendering changes: remembered maps are then stale
KNOWN_LINES = 4096  # token counts of recently rendered lines kept in the cache


@dataclass
class _State:
    entries: dict[str, Entry]
    graph: Graph | None = None  # built from the entries' tags; None once some tags changed
    ranker: Ranker | None = None  # the graph's ranking state, kept while the graph is
    from_disk: bool = True  # entries came from the cache file and may be of a stale shape
    unsaved: bool = False  # entries or graph differ from the cache file
    # The entries' tags folded into the graph's parts, kept for a rebuild after an edit; filled
    # as a pool's batches come back, or from the packed tags when a rebuild first needs them.
    builder: GraphBuilder = field(default_factory=GraphBuilder)
    # The listing whose every source the entries matched, none too recent to trust: the same
    # listing again (listing.py keeps it while nothing moved) needs no comparison.
    matched: ProjectFiles | None = None


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
        # Our own cache is reached by fd from the root, never through a symlink it may hold.
        self._cache_root = self.root if self._own_cache_dir else None
        self.workers = workers if workers is not None else default_workers()
        self._counter = counter
        self._lock = threading.Lock()
        self._state: _State | None = None
        self._memo = MapMemo(
            MAP_VERSION, self.cache_dir, self._writable_cache, root=self._cache_root
        )
        self._lines: LineCounter | None = None
        self._listing = ProjectListing(self.root)
        self._signatures = SignatureCache(self.root)

    def focused(self, focus: tuple[str, ...], identifiers: tuple[str, ...], max_tokens: int) -> str:
        """The map the repo_map tool returns: the focus files' and the identifiers'
        definitions first, then what they use (tools.base.CodeMap)."""
        request = MapRequest(
            max_tokens=max_tokens, focus=focus, identifiers=identifiers, show_focus=True
        )
        return self.render(request).text

    def render(self, request: MapRequest) -> MapResult:
        # Loading the cache and building the graph make hundreds of thousands of tuples, none
        # in a cycle, that live as long as the map: the collector would walk them again and
        # again (a third of that time).
        with self._lock, paused_collector():
            return self._render(request)

    def _render(self, request: MapRequest) -> MapResult:
        started = time.perf_counter()
        listings = self._listing.full_listings
        files = self._listing.current()
        listed = time.perf_counter()
        tokenizer = self._counter.name if self._counter else default_counter_name()
        key = self._memo.key(files, request, tokenizer)
        remembered = self._memo.get(key, files)
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
            self._memo.put(key, result)
        stats = result.stats.with_counts(
            files=len(files.sources) + len(files.others),
            sources=len(files.sources),
            workers=self.workers,
            list_s=listed - started,
            listed=self._listing.full_listings > listings,
        )
        return MapResult(result.text, stats)

    def _build(self, request: MapRequest, files: ProjectFiles) -> MapResult:
        started = time.perf_counter()
        if self.cache_dir is not None:
            cache.wait_for_tags(self.cache_dir)  # the last write still reads the entries
        state = self._state or self._load_state()
        lines = self._line_counter()
        parsed, hits = self._refresh(state, files, lines)
        refreshed = time.perf_counter()
        graph = self._graph(state)
        if state.ranker is None or state.ranker.graph is not graph:
            state.ranker = Ranker(graph)
        graphed = time.perf_counter()
        paths = [f.path for f in files.sources] + list(files.others)
        mentions = find_mentions(request.message, paths)
        counted = lines.counted
        result = select_map(self._signatures, state.ranker, files, request, mentions, lines)
        if lines.counted > counted:
            self._save_lines(lines)
        self._save_tags(state)
        stats = result.stats.with_counts(
            parsed=parsed,
            cache_hits=hits,
            parse_s=refreshed - started,
            rank_s=result.stats.rank_s + (graphed - refreshed),
        )
        return MapResult(result.text, stats)

    def _writable_cache(self) -> Path | None:
        """The cache dir, after making `.zizou/` (with its .gitignore) when it is ours."""
        if self.cache_dir is not None and self._own_cache_dir:
            try:
                project_dir(self.root)
            except OSError:
                return None  # a read-only project or an unsafe `.zizou`: no cache, still a map
        return self.cache_dir

    def _load_state(self) -> _State:
        entries, graph = (
            cache.load_tags(self.cache_dir, tags_fingerprint(), root=self._cache_root)
            if self.cache_dir
            else ({}, None)
        )
        self._state = _State(entries, graph, from_disk=bool(entries))
        return self._state

    def _line_counter(self) -> LineCounter:
        """Counts the map's lines, with the counts of lines rendered before (by this tokenizer)."""
        if self._lines is None:
            injected = self._counter
            if injected is not None:
                name, exact, load = injected.name, injected.exact, lambda: injected
            else:
                name = default_counter_name()
                exact, load = name == "cl100k_base", default_counter
            known = (
                cache.load_token_counts(self.cache_dir, name, root=self._cache_root)
                if self.cache_dir
                else {}
            )
            self._lines = LineCounter(name, exact, load, known)
        return self._lines

    def _save_lines(self, lines: LineCounter) -> None:
        if len(lines.known) > KNOWN_LINES:
            lines.known = dict(list(lines.known.items())[-KNOWN_LINES:])
        if not lines.exact:
            return  # an estimate is as cheap to redo as to remember
        directory = self._writable_cache()
        if directory is not None:
            cache.save_token_counts(directory, lines.name, lines.known, root=self._cache_root)

    def _refresh(self, state: _State, files: ProjectFiles, lines: LineCounter) -> tuple[int, int]:
        """Bring the entries up to date with the files; (parsed or re-read, trusted as cached)."""
        if files is state.matched:
            return 0, len(files.sources)
        jobs: list[ParseJob] = []
        for file in files.sources:
            known = state.entries.get(file.path)
            if not (
                known is not None
                and known.size == file.size
                and known.mtime_ns == file.mtime_ns
                and file.mtime_ns < known.checked_ns - RACY_NS
                and known.language == file.language
            ):
                jobs.append(ParseJob(file, known))
        # While a pool parses, this process loads the tokenizer a fresh cache will need, and
        # folds the tags that came back into the graph's parts.
        warm_up = None if lines.known else lines.load
        fold = _folder(state.builder, {job.file.path: job.known for job in jobs})
        fresh = (
            read_entries(self.root, jobs, self.workers, while_waiting=warm_up, each=fold)
            if jobs
            else {}
        )
        listed = {file.path for file in files.sources}
        gone = sorted(path for path in state.entries if path not in listed)
        changed = bool(gone)
        moved = False  # a file's size or mtime moved: worth saving even with the same tags
        for path in gone:
            del state.entries[path]
            state.builder.discard(path)
        for job in jobs:
            path = job.file.path
            entry = fresh.get(path)
            if not _same_tags(entry, job.known):
                changed = True
            moved = moved or not _same_stat(entry, job.known)
            if entry is None:
                state.entries.pop(path, None)
                state.builder.discard(path)
            else:
                state.entries[path] = entry
        if changed:
            state.graph = None
        state.matched = files if not jobs else None
        # A recent file re-read unchanged is not worth rewriting the cache for at every step.
        state.unsaved = state.unsaved or changed or moved
        return len(jobs), len(files.sources) - len(jobs)

    def _graph(self, state: _State) -> Graph:
        if state.graph is None:
            builder = state.builder
            for path in builder.paths() - state.entries.keys():
                builder.discard(path)
            for path, entry in state.entries.items():
                if path not in builder:
                    tags = entry.file_tags()
                    if tags is not None:
                        builder.add(path, tags)
            state.graph = builder.build()
            state.unsaved = True
        return state.graph

    def _save_tags(self, state: _State) -> None:
        """Write the tags after the map is handed back (cache.save_tags_later)."""
        directory = self._writable_cache() if state.unsaved else None
        if directory is not None:
            cache.save_tags_later(
                directory, tags_fingerprint(), state.entries, state.graph, root=self._cache_root
            )
        state.unsaved = False

    def wait_for_cache(self) -> None:
        """Return once the tags this map wrote are on disk: they are written in a thread after
        the map is handed back."""
        if self.cache_dir is not None:
            cache.wait_for_tags(self.cache_dir)


def _folder(
    builder: GraphBuilder, known: dict[str, Entry | None]
) -> Callable[[dict[str, Entry]], None]:
    """Folds each batch of fresh entries into `builder`, skipping files whose tags it holds."""

    def fold(entries: dict[str, Entry]) -> None:
        for path, entry in entries.items():
            was = known.get(path)
            if was is not None and was.tags == entry.tags and path in builder:
                continue
            tags = entry.file_tags()
            if tags is None:
                builder.discard(path)
            else:
                builder.add(path, tags)

    return fold


def _same_tags(entry: Entry | None, known: Entry | None) -> bool:
    if entry is None or known is None:
        return entry is known
    return (entry.digest, entry.language, entry.tags) == (known.digest, known.language, known.tags)


def _same_stat(entry: Entry | None, known: Entry | None) -> bool:
    if entry is None or known is None:
        return entry is known
    return (entry.size, entry.mtime_ns) == (known.size, known.mtime_ns)


__all__ = ["MAP_VERSION", "RACY_NS", "RepoMap"]
