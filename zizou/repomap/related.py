"""The files a focused file's reader also needs: those that use it, and its tests.

The walk (rank.py) follows uses forward: a map focused on `x.py` favours what `x.py` uses. A
change to `x.py` usually also touches its callers and its tests, which the walk never reaches
from `x.py`. They are found here, on the graph's reverse edges (the files whose uses resolve to
names `x.py` defines, weighed like the walk's edges) and by the usual test file names:
`test_x.py`, `x_test.py` (and `tests/.../test_x.py`), `x_test.go`, `XTest.java`, `XTests.java`,
`XIT.java` (and Kotlin's), `x.spec.ts`, `x.test.ts` (and .js, .tsx, .jsx).

The index of tests by name is built once per graph (a graph is built once per set of tags, so
once per listing at most), and what one focus found is kept for the requests after it.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from zizou.repomap.graph import Graph

MAX_FOCUS_FILES = 8  # a focus of more files (a directory) is broad enough as it is
MAX_IMPORTERS = 6  # per focused file, the strongest users
MAX_TESTS = 4  # per focused file, tests by name or by use
MIN_USE_STRENGTH = 1.0  # one plain use of a name only the focused file defines
IMPORTER_WEIGHT = 0.8  # the strongest user, against a test found by name (1.0)
TEST_BY_USE_WEIGHT = 0.9
KEPT_FOCUSES = 8

TEST_DIRS = frozenset(["test", "tests", "testing", "__tests__", "spec", "specs"])
_SCRIPT_EXTENSIONS = frozenset(["ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"])
_JVM_EXTENSIONS = frozenset(["java", "kt"])
_JVM_SUFFIXES = ("Tests", "Test", "IT")


@dataclass(frozen=True)
class _Subject:
    """What a test file is named after: its subject's stem, in a group of file extensions."""

    group: str
    stem: str


class Relatives:
    """One graph's relatives of a focus: file path -> how related, in (0, 1]."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self._tests_by_name: dict[_Subject, tuple[int, ...]] | None = None
        self._known: dict[tuple[str, ...], dict[str, float]] = {}

    def of(self, focus: Iterable[str]) -> dict[str, float]:
        """The importers and tests of the focused files, none of them focused itself; nothing
        for a focus of more than MAX_FOCUS_FILES files."""
        key = tuple(sorted(set(focus)))
        if not key or len(key) > MAX_FOCUS_FILES:
            return {}
        known = self._known.pop(key, None)
        if known is None:
            known = self._find(key)
        kept = list(self._known.items())[-(KEPT_FOCUSES - 1) :]
        self._known = {**dict(kept), key: known}
        return known

    def _find(self, focus: tuple[str, ...]) -> dict[str, float]:
        graph = self.graph
        found: dict[int, float] = {}
        indexes = [i for i in map(self._index, focus) if i is not None]
        for index in indexes:
            for other, weight in self._file_relatives(index).items():
                found[other] = max(found.get(other, 0.0), weight)
        for index in indexes:
            found.pop(index, None)
        return {graph.paths[i]: found[i] for i in sorted(found)}

    def _index(self, path: str) -> int | None:
        paths = self.graph.paths
        index = bisect.bisect_left(paths, path)
        return index if index < len(paths) and paths[index] == path else None

    def _file_relatives(self, index: int) -> dict[int, float]:
        users = self._users(index)
        by_name = self._tests_named_after(index)
        code: list[int] = []
        tests: list[int] = []
        wanted_tests = MAX_TESTS - len(by_name)
        for user in users:  # strongest first
            if is_test_path(self.graph.paths[user]):
                if len(tests) < wanted_tests:
                    tests.append(user)
            elif len(code) < MAX_IMPORTERS:
                code.append(user)
            if len(code) == MAX_IMPORTERS and len(tests) >= wanted_tests:
                break
        found: dict[int, float] = {}
        if code:
            strongest = users[code[0]]
            for user in code:
                found[user] = IMPORTER_WEIGHT * users[user] / strongest
        for test in tests:
            found[test] = TEST_BY_USE_WEIGHT
        for test in by_name:
            found[test] = 1.0
        return found

    def _users(self, index: int) -> dict[int, float]:
        """Files using names this file defines -> how strongly (uses weighed as the walk weighs
        them, shared among a name's definers, the user's credence undone), strongest first;
        only those above MIN_USE_STRENGTH."""
        graph = self.graph
        low, high = graph.def_bounds[index], graph.def_bounds[index + 1]
        unused = len(graph.names)
        names = {
            j: share
            for j, share in zip(graph.def_ident[low:high], graph.def_share[low:high], strict=True)
            if j != unused
        }
        strength: dict[int, float] = {}
        edge_file, edge_weight, bounds = graph.edge_file, graph.edge_weight, graph.edge_bounds
        for j, share in names.items():
            for e in range(bounds[j], bounds[j + 1]):
                user = edge_file[e]
                strength[user] = strength.get(user, 0.0) + edge_weight[e] * share
        prior = graph.prior
        strong = [
            (s / prior[u], u) for u, s in strength.items() if s / prior[u] >= MIN_USE_STRENGTH
        ]
        strong.sort(key=lambda pair: (-pair[0], pair[1]))
        return {user: s for s, user in strong}

    def _tests_named_after(self, index: int) -> list[int]:
        """Tests named after this file, the nearest first (most directories in common, from
        either end: `src/main/java/a/X.java` and `src/test/java/a/XTest.java` share six)."""
        if self._tests_by_name is None:
            self._tests_by_name = _index_tests(self.graph.paths)
        path = self.graph.paths[index]
        subject = _subject_of(path)
        if subject is None:
            return []
        candidates = self._tests_by_name.get(subject, ())
        if not candidates:
            return []
        here = path.split("/")[:-1]
        nearest = sorted(candidates, key=lambda t: (-_shared_dirs(here, self.graph.paths[t]), t))
        best = _shared_dirs(here, self.graph.paths[nearest[0]])
        return [t for t in nearest if _shared_dirs(here, self.graph.paths[t]) == best][:MAX_TESTS]


def is_test_path(path: str) -> bool:
    """A test by its name or its directory."""
    parts = path.split("/")
    return _tested_subject(parts[-1]) is not None or not TEST_DIRS.isdisjoint(parts[:-1])


def _index_tests(paths: tuple[str, ...]) -> dict[_Subject, tuple[int, ...]]:
    found: dict[_Subject, list[int]] = {}
    for index, path in enumerate(paths):
        subject = _tested_subject(path.rpartition("/")[2])
        if subject is not None:
            found.setdefault(subject, []).append(index)
    return {subject: tuple(files) for subject, files in found.items()}


def _tested_subject(name: str) -> _Subject | None:
    """The subject a test file's name points at (`test_x.py` -> x.py), or None."""
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        return None
    if extension in ("py", "go"):
        if extension == "py" and stem.startswith("test_") and len(stem) > 5:
            return _Subject(extension, stem[5:])
        if stem.endswith("_test") and len(stem) > 5:
            return _Subject(extension, stem[:-5])
        return None
    if extension in _JVM_EXTENSIONS:
        for suffix in _JVM_SUFFIXES:
            if stem.endswith(suffix) and len(stem) > len(suffix):
                return _Subject("jvm", stem[: -len(suffix)])
        return None
    if extension in _SCRIPT_EXTENSIONS:
        base, dot, kind = stem.rpartition(".")
        if dot and base and kind in ("spec", "test"):
            return _Subject("script", base)
    return None


def _subject_of(path: str) -> _Subject | None:
    """The key a file's tests are indexed under."""
    stem, dot, extension = path.rpartition("/")[2].rpartition(".")
    if not dot or not stem:
        return None
    if extension in ("py", "go"):
        return _Subject(extension, stem)
    if extension in _JVM_EXTENSIONS:
        return _Subject("jvm", stem)
    if extension in _SCRIPT_EXTENSIONS:
        return _Subject("script", stem)
    return None


def _shared_dirs(here: list[str], other: str) -> int:
    there = other.split("/")[:-1]
    leading = 0
    for a, b in zip(here, there, strict=False):
        if a != b:
            break
        leading += 1
    trailing = 0
    for a, b in zip(reversed(here[leading:]), reversed(there[leading:]), strict=False):
        if a != b:
            break
        trailing += 1
    return leading + trailing


def by_index(graph: Graph, by_path: Mapping[str, float]) -> dict[int, float]:
    """`by_path` keyed by file index instead, for the files the graph has."""
    paths = graph.paths
    found: dict[int, float] = {}
    for path, weight in sorted(by_path.items()):
        index = bisect.bisect_left(paths, path)
        if index < len(paths) and paths[index] == path:
            found[index] = weight
    return found


__all__ = ["Relatives", "by_index", "is_test_path"]
