"""Maps rendered before, served again when neither the files nor the request changed.

The prompt asks for the same map at many steps in a row, and a new `zizou map` process for the
one the last process made. A map is remembered by a key over the code that made it, every source
file's path, size and mtime, the other files' names, the request and the tokenizer: in memory,
and the last few in `.zizou/cache/`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from zizou import __version__
from zizou.redact import Redactor
from zizou.repomap import cache
from zizou.repomap.files import ProjectFiles
from zizou.repomap.graph import graph_fingerprint
from zizou.repomap.parse import RACY_NS
from zizou.repomap.request import MapRequest, MapResult, MapStats
from zizou.repomap.tags import tags_fingerprint

MEMO_SIZE = 16


class MapMemo:
    def __init__(
        self,
        version: int,
        cache_dir: Path | None,
        writable: Callable[[], Path | None],
        *,
        root: Path | None = None,
    ) -> None:
        self._version = version  # of the ranking and rendering (mapper.MAP_VERSION)
        self._cache_dir = cache_dir
        self._root = root  # the cache is read and written by fd from here (cache._load)
        self._writable = writable  # the cache dir, made ready for writing, or None
        self._memo: dict[str, tuple[MapResult, int]] = {}  # key -> (result, written_ns)
        self._disk: dict[str, cache.Render] | None = None

    def key(self, files: ProjectFiles, request: MapRequest, tokenizer: str) -> str:
        digest = hashlib.blake2b(digest_size=16)
        code = f"{__version__}\0{self._version}\0{tags_fingerprint()}\0{graph_fingerprint()}"
        digest.update(code.encode())
        digest.update(files.digest)
        digest.update(f"\1{request.cache_key()}\1{tokenizer}".encode())
        return digest.hexdigest()

    def get(self, key: str, files: ProjectFiles) -> MapResult | None:
        """A map rendered before for the same files and request, unless a file changed so
        recently (within RACY_NS of that render) that an edit might hide behind an equal mtime."""
        if key in self._memo:
            result, written_ns = self._memo[key]
        else:
            stored = self._on_disk().get(key)
            if stored is None:
                return None
            text, written_ns, counts, tokenizer = stored
            if len(counts) != len(MapStats.MEMO_FIELDS):
                return None
            result = MapResult(text, MapStats.from_memo(counts, tokenizer))
        return result if files.newest_mtime_ns < written_ns - RACY_NS else None

    def put(self, key: str, result: MapResult) -> None:
        now = time.time_ns()
        recent = list(self._memo.items())[-(MEMO_SIZE - 1) :]
        self._memo = {**dict(recent), key: (result, now)}
        stats = result.stats
        # On disk the map holds lines of source: a credential pasted in a file stays out of it
        # (credential-shaped strings: the map knows no loaded keys).
        text = Redactor().redact(result.text)
        memo = {**self._on_disk(), key: (text, now, stats.memo_counts(), stats.tokenizer)}
        self._disk = dict(sorted(memo.items(), key=lambda kv: (kv[1][1], kv[0]))[-MEMO_SIZE:])
        directory = self._writable()
        if directory is not None:
            cache.save_renders(directory, self._disk, root=self._root)

    def _on_disk(self) -> dict[str, cache.Render]:
        if self._disk is None:
            directory = self._cache_dir
            self._disk = cache.load_renders(directory, root=self._root) if directory else {}
        return self._disk


__all__ = ["MapMemo"]
