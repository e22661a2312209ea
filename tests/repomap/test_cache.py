"""The tags cache: edits are seen, a corrupt or foreign file is rebuilt, writers never clash."""

from __future__ import annotations

import marshal
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.waiting import wait_until
from zizou import confined
from zizou.repomap import cache
from zizou.repomap.graph import Graph
from zizou.repomap.graph_build import build_graph
from zizou.repomap.mapper import RACY_NS, RepoMap
from zizou.repomap.request import MapRequest, MapResult
from zizou.repomap.tags import tags_fingerprint
from zizou.repomap.tokens import EstimateCounter, default_counter

from .conftest import write_project


def _mapper(project: Path) -> RepoMap:
    return RepoMap(project, workers=1, counter=EstimateCounter())


def _written(project: Path, request: MapRequest) -> MapResult:
    """A map rendered, once its tags are on disk (they are written after it is handed back)."""
    mapper = _mapper(project)
    result = mapper.render(request)
    mapper.wait_for_cache()
    return result


def _age(project: Path, seconds: float = 10.0) -> None:
    """Make every file look old, as if edited well before the cache saw it."""
    past = os.stat(project).st_mtime - seconds
    for path in project.rglob("*"):
        if path.is_file() and ".zizou" not in path.parts:
            os.utime(path, (past, past))


@pytest.fixture
def aged(tmp_path: Path) -> Path:
    project = write_project(tmp_path / "project")
    _age(project)
    return project


def test_a_warm_map_parses_nothing_and_says_so(aged: Path) -> None:
    first = _mapper(aged).render(MapRequest(max_tokens=400))
    assert first.stats.parsed == first.stats.sources > 0 and first.stats.cache_hits == 0
    again = _mapper(aged).render(MapRequest(max_tokens=401))  # a new process, another request
    assert again.stats.parsed == 0 and again.stats.cache_hits == first.stats.sources
    assert not again.stats.memo
    same = _mapper(aged).render(MapRequest(max_tokens=401))
    assert same.stats.memo and same.text == again.text


def test_an_edit_is_reparsed_and_shows_in_the_map(aged: Path) -> None:
    mapper = _mapper(aged)
    before = mapper.render(MapRequest(max_tokens=2000))
    assert "brand_new_function" not in before.text
    path = aged / "app/util.py"
    path.write_text(path.read_text() + "\n\ndef brand_new_function() -> None:\n    pass\n")
    after = mapper.render(MapRequest(max_tokens=2000))
    assert after.stats.parsed == 1
    assert "brand_new_function" in after.text
    fresh = _mapper(aged).render(MapRequest(max_tokens=2000))  # the disk cache saw it too
    assert "brand_new_function" in fresh.text


def test_a_same_size_same_mtime_edit_is_caught_by_the_content_digest(aged: Path) -> None:
    path = aged / "app/util.py"
    stat = path.stat()
    _mapper(aged).render(MapRequest(max_tokens=2000))
    path.write_text(path.read_text().replace("slugify", "slugifx"))  # same size
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    entries, graph = cache.load_tags(aged / ".zizou" / "cache", tags_fingerprint())
    recent = entries["app/util.py"]
    # The cache looked at the file within RACY_NS of its mtime, so it must not trust the mtime.
    entries["app/util.py"] = replace(recent, checked_ns=stat.st_mtime_ns + RACY_NS // 2)
    cache.save_tags(aged / ".zizou" / "cache", tags_fingerprint(), entries, graph)
    text = _mapper(aged).render(MapRequest(max_tokens=2001)).text
    assert "slugifx" in text and "slugify(" not in text


def test_a_deleted_file_leaves_the_map(aged: Path) -> None:
    mapper = _mapper(aged)
    assert "app/report.py" in mapper.render(MapRequest(max_tokens=4000)).text
    (aged / "app/report.py").unlink()
    assert "app/report.py" not in mapper.render(MapRequest(max_tokens=4000)).text


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"garbage",
        b"ZZRMAP\x00\x00\x00\x00\x00\x00truncated",
        None,  # flip a byte in the middle of a good file
        "wrong-shape",  # a well-formed file holding the wrong structure
        "bad-row",  # one file's row of the wrong shape
        "bad-tags",  # right on the outside, wrong deep inside, and no graph to spare a decode
    ],
)
def test_a_corrupt_cache_is_rebuilt_never_a_crash(aged: Path, damage: bytes | str | None) -> None:
    good = _written(aged, MapRequest(max_tokens=700)).text
    directory = aged / ".zizou" / "cache"
    tags_file = directory / cache.TAGS_FILE
    if damage is None:
        data = bytearray(tags_file.read_bytes())
        data[len(data) // 2] ^= 0xFF
        tags_file.write_bytes(bytes(data))
    elif damage == "wrong-shape":
        cache._save(tags_file, {"fingerprint": tags_fingerprint(), "entries": {"x.py": (1, 2)}})
    elif damage == "bad-row":
        fingerprint, graph_key, rows, graph = cache._load(tags_file)  # type: ignore[misc]
        rows = (*rows[:-1], (rows[-1][0], 1, 2))
        cache._save(tags_file, (fingerprint, graph_key, rows, graph))
    elif damage == "bad-tags":
        entries, _ = cache.load_tags(directory, tags_fingerprint())
        bad = marshal.dumps((((1, 2),), (("x",),)))
        entries["app/util.py"] = replace(entries["app/util.py"], tags=bad)
        cache.save_tags(directory, tags_fingerprint(), entries, None)
    else:
        assert isinstance(damage, bytes)
        tags_file.write_bytes(damage)
    (directory / cache.RENDERS_FILE).write_bytes(b"\0\1\2")
    (directory / cache.TOKENS_FILE).write_bytes(b"ZZRMAP\0\0")
    rebuilt = _mapper(aged).render(MapRequest(max_tokens=700))
    assert rebuilt.text == good
    assert rebuilt.stats.parsed == rebuilt.stats.sources


def test_a_stored_graph_of_the_wrong_shape_is_rebuilt_from_the_tags(aged: Path) -> None:
    good = _written(aged, MapRequest(max_tokens=700)).text
    directory = aged / ".zizou" / "cache"
    fingerprint, graph_key, rows, graph = cache._load(directory / cache.TAGS_FILE)  # type: ignore[misc]
    assert Graph.from_raw(graph).paths  # stored beside the tags
    broken = (graph[0][:-1], *graph[1:])  # one path short of the rest
    cache._save(directory / cache.TAGS_FILE, (fingerprint, graph_key, rows, broken))
    (directory / cache.RENDERS_FILE).unlink()
    again = _mapper(aged).render(MapRequest(max_tokens=700))
    assert again.text == good and again.stats.parsed == 0  # the tags still held
    assert cache.load_tags(directory, tags_fingerprint())[1] == Graph.from_raw(graph)


def test_the_stored_graph_is_the_graph_of_the_stored_tags(aged: Path) -> None:
    _mapper(aged).render(MapRequest(max_tokens=700))
    entries, graph = cache.load_tags(aged / ".zizou" / "cache", tags_fingerprint())
    tags = {path: entry.file_tags() for path, entry in entries.items()}
    assert graph == build_graph({path: t for path, t in tags.items() if t is not None})


def test_concurrent_writers_leave_a_whole_cache(aged: Path) -> None:
    errors: list[BaseException] = []

    def render(budget: int) -> None:
        try:
            RepoMap(aged, workers=1, counter=EstimateCounter()).render(
                MapRequest(max_tokens=budget)
            )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=render, args=(300 + i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert cache.load_tags(aged / ".zizou" / "cache", tags_fingerprint())[0]
    assert not list((aged / ".zizou" / "cache").glob("*.tmp"))


def test_the_map_is_handed_back_before_its_tags_are_written(
    aged: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tags file of a large project takes a while to write, and the map is ready before it;
    a load of the cache in the same process waits for the write rather than finding none."""
    tags_file = aged / ".zizou" / "cache" / cache.TAGS_FILE
    writing, release = threading.Event(), threading.Event()
    write = confined.atomic_write

    def held_write(root: Path, path: Path, data: bytes, **options: Any) -> None:
        if path == tags_file:
            writing.set()
            release.wait()
        write(root, path, data, **options)

    monkeypatch.setattr(confined, "atomic_write", held_write)
    mapper = _mapper(aged)
    rendered: list[MapResult] = []
    loaded: list[tuple[dict[str, Any], Graph | None]] = []

    def load() -> None:
        loaded.append(cache.load_tags(tags_file.parent, tags_fingerprint()))

    renderer = threading.Thread(
        target=lambda: rendered.append(mapper.render(MapRequest(max_tokens=700))), daemon=True
    )
    loader = threading.Thread(target=load, daemon=True)
    try:
        renderer.start()
        wait_until(lambda: rendered, "the map while its tags are being written")
        assert writing.is_set() and not tags_file.exists()
        loader.start()
    finally:
        release.set()
    loader.join()
    entries, graph = loaded[0]
    assert len(entries) == rendered[0].stats.sources and graph is not None
    warm = _mapper(aged).render(MapRequest(max_tokens=700))
    assert warm.text == rendered[0].text and warm.stats.parsed == 0


def test_the_cache_lives_in_an_ignored_zizou_dir(aged: Path) -> None:
    _written(aged, MapRequest())
    assert (aged / ".zizou" / ".gitignore").read_text() == "*\n"
    assert (aged / ".zizou" / "cache" / cache.TAGS_FILE).is_file()


def test_without_persistence_nothing_is_written(aged: Path) -> None:
    mapper = RepoMap(aged, persist=False, workers=1, counter=EstimateCounter())
    assert mapper.render(MapRequest()).text
    assert not (aged / ".zizou").exists()


def test_recent_files_are_rechecked_without_rewriting_the_cache(project: Path) -> None:
    mapper = _mapper(project)  # the files were just written: too recent to trust their mtimes
    mapper.render(MapRequest(max_tokens=400))
    mapper.wait_for_cache()
    tags_file = project / ".zizou" / "cache" / cache.TAGS_FILE
    written = tags_file.stat().st_mtime_ns
    again = mapper.render(MapRequest(max_tokens=401))
    assert again.stats.parsed > 0  # the new files are re-read to compare digests
    assert tags_file.stat().st_mtime_ns == written


class _Counting:
    """cl100k_base, counting how often it is asked."""

    name = "cl100k_base"
    exact = True

    def __init__(self, refuse: bool = False) -> None:
        self.calls = 0
        self.refuse = refuse

    def count(self, text: str) -> int:
        assert not self.refuse, f"the tokenizer was needed for {text!r}"
        self.calls += 1
        return default_counter().count(text)


def test_a_warm_map_needs_no_tokenizer_and_matches_a_fresh_build(aged: Path) -> None:
    request = MapRequest(max_tokens=500, message="how does `make_service` connect?")
    counting = _Counting()
    first = RepoMap(aged, workers=1, counter=counting).render(request)
    assert counting.calls > 0 and first.stats.tokens <= 500
    directory = aged / ".zizou" / "cache"
    (directory / cache.RENDERS_FILE).unlink()  # no memo: rank and render again
    warm = RepoMap(aged, workers=1, counter=_Counting(refuse=True)).render(request)
    assert not warm.stats.memo and warm.stats.parsed == 0
    fresh = RepoMap(aged, persist=False, workers=1, counter=default_counter()).render(request)
    assert warm.text == first.text == fresh.text
    assert warm.stats.tokens == fresh.stats.tokens == default_counter().count(fresh.text)


def test_token_counts_are_kept_per_tokenizer_and_a_bad_file_is_recounted(aged: Path) -> None:
    _mapper(aged).render(MapRequest(max_tokens=400))  # an estimate: nothing to keep
    directory = aged / ".zizou" / "cache"
    assert not (directory / cache.TOKENS_FILE).exists()
    RepoMap(aged, workers=1, counter=_Counting()).render(MapRequest(max_tokens=400))
    counts = cache.load_token_counts(directory, "cl100k_base")
    assert counts and cache.load_token_counts(directory, "other") == {}
    (directory / cache.TOKENS_FILE).write_bytes(b"ZZRMAP\0\0\0\0\0\0nonsense")
    (directory / cache.RENDERS_FILE).unlink()
    counting = _Counting()
    again = RepoMap(aged, workers=1, counter=counting).render(MapRequest(max_tokens=400))
    assert counting.calls > 0 and again.stats.tokens <= 400
