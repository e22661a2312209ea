"""The ranking graph: which files use and which define each name (built by graph_build.py).

It is bipartite and small: file -> name edges, one per file and name it uses, and name -> file
edges, one per file defining the name (which share its flow by their priors). Walking
file -> name -> file is PageRank on "file A uses what file B defines" without materialising file
pairs, which for names like `get` would be quadratic. Names are kept per language family (a
Python file's `User` is not a TypeScript file's `User`). Everything is laid out in a fixed order
(files by path, names sorted), so later float sums are the same under any hash seed.

The graph is nothing but flat tuples, so the tags cache stores it beside the tags (`to_raw`) and
a new process ranks without rebuilding it; the lookups by name are derived on first use.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from functools import cached_property
from importlib import resources

SIDE_PRIOR = 0.2
SIDE_DIRS = frozenset(
    [
        "test",
        "tests",
        "testing",
        "test-data",
        "testdata",
        "fixtures",
        "__tests__",
        "spec",
        "specs",
        "examples",
        "example",
        "docs",
        "doc",
        "benchmarks",
        "bench",
        "samples",
    ]
)
FAMILIES = {
    "typescript": "ecmascript",
    "tsx": "ecmascript",
    "javascript": "ecmascript",
    "c": "c",
    "cpp": "c",
    "kotlin": "jvm",
    "java": "jvm",
}

Key = tuple[str, str]  # (language family, name)


@dataclass(frozen=True)
class Graph:
    paths: tuple[str, ...]  # sorted; a file's index is its position
    file_family: tuple[str, ...]  # per file: its language family
    prior: tuple[float, ...]  # per file: its share of the uniform teleport (see file_prior)
    names: tuple[Key, ...]  # names with a definer and a use in another file, sorted
    edge_file: tuple[int, ...]  # use edges grouped by name: the using file
    edge_weight: tuple[float, ...]
    edge_bounds: tuple[int, ...]  # name j's use edges are edge_bounds[j]:edge_bounds[j+1]
    definers: tuple[tuple[int, ...], ...]  # per name in `names`, the defining files
    # Every definition, flat, in path then line order:
    def_bounds: tuple[int, ...]  # file i's definitions are def_bounds[i]:def_bounds[i+1]
    def_name: tuple[str, ...]
    def_line: tuple[int, ...]
    def_kind: tuple[str, ...]
    def_ident: tuple[int, ...]  # index into `names`, or len(names) when no other file uses it
    def_share: tuple[float, ...]  # its file's share of the name's flow (0 when unused)
    references: int  # distinct (file, name) uses, for the stats

    @cached_property
    def defined(self) -> Mapping[Key, tuple[int, ...]]:
        """Every defined name -> its files, in path order."""
        by_family = definers_by_family(self.file_family, self.def_bounds, self.def_name)
        return {
            (family, name): tuple(files)
            for family, names in by_family.items()
            for name, files in names.items()
        }

    @cached_property
    def families(self) -> Mapping[str, tuple[Key, ...]]:
        """A bare name -> its keys, one per family that defines it."""
        found: dict[str, list[Key]] = {}
        for key in sorted(self.defined):
            found.setdefault(key[1], []).append(key)
        return {name: tuple(keys) for name, keys in found.items()}

    @cached_property
    def name_index(self) -> Mapping[Key, int]:
        return {key: j for j, key in enumerate(self.names)}

    def definers_of(self, name: str) -> tuple[int, ...]:
        """Files defining `name` in any language, in path order."""
        return tuple(sorted(i for key in self.families.get(name, ()) for i in self.defined[key]))

    def to_raw(self) -> tuple[object, ...]:
        """The graph as plain tuples, for `marshal`."""
        return tuple(getattr(self, field.name) for field in fields(self))

    @classmethod
    def from_raw(cls, raw: object) -> Graph:
        """The graph `to_raw` gave; ValueError when `raw` is not of its shape. Sizes are checked,
        not every item: the cache's checksum vouches for the bytes."""
        if not (
            type(raw) is tuple
            and len(raw) == len(fields(cls))
            and all(type(part) is tuple for part in raw[:-1])
            and type(raw[-1]) is int
        ):
            raise ValueError("a graph of the wrong shape")
        graph = cls(*raw)
        files, names = len(graph.paths), len(graph.names)
        defs = graph.def_bounds[-1] if graph.def_bounds else -1
        edges = graph.edge_bounds[-1] if graph.edge_bounds else -1
        if not (
            len(graph.file_family) == len(graph.prior) == files == len(graph.def_bounds) - 1
            and len(graph.definers) == names == len(graph.edge_bounds) - 1
            and len(graph.edge_file) == len(graph.edge_weight) == edges
            and len(graph.def_name) == len(graph.def_line) == len(graph.def_kind) == defs
            and len(graph.def_ident) == len(graph.def_share) == defs
        ):
            raise ValueError("a graph of inconsistent sizes")
        return graph


def family_of(language: str) -> str:
    return FAMILIES.get(language, language)


def definers_by_family(
    file_family: Sequence[str], def_bounds: Sequence[int], def_name: Sequence[str]
) -> dict[str, dict[str, list[int]]]:
    """Family -> name -> the files defining it, in path order, from the flat definitions."""
    found: dict[str, dict[str, list[int]]] = {}
    for index, family in enumerate(file_family):
        here = found.setdefault(family, {})
        for name in dict.fromkeys(def_name[def_bounds[index] : def_bounds[index + 1]]):
            files = here.get(name)
            if files is None:
                here[name] = [index]
            else:
                files.append(index)
    return found


@functools.cache
def graph_fingerprint() -> str:
    """Changes whenever the code that builds the graph does, so a stored graph built by another
    version is rebuilt from the tags rather than trusted."""
    folder = resources.files("zizou.repomap")
    digest = hashlib.blake2b(digest_size=12)
    for name in ("graph.py", "graph_build.py", "common_names.py"):
        digest.update((folder / name).read_bytes())
    return digest.hexdigest()


def file_prior(path: str) -> float:
    """How much a file counts, as a teleport target and as a voucher for what it uses: the
    project's own code fully; tests, fixtures, examples, docs and type stubs (`.pyi`: another
    module's interface) a fifth.

    Stubs and fixtures reference each other densely, so counted fully they would soak up the
    rank that the project's code deserves.
    """
    parts = path.lower().split("/")
    if path.endswith(".pyi") or not SIDE_DIRS.isdisjoint(parts[:-1]):
        return SIDE_PRIOR
    name = parts[-1]
    if name.startswith("test_") or name.rsplit(".", 1)[0].endswith(
        ("_test", "tests", "test", "spec")
    ):
        return SIDE_PRIOR
    return 1.0


def claimed_by(files: tuple[int, ...], prior: tuple[float, ...]) -> float:
    """What a name's flow is divided by among its defining files: their priors' sum, but never
    less than one file's. A name only tests or stubs define more likely means a package they
    imitate (mypy's test stubs of `mypy_extensions`), so they take only their prior's part of the
    flow and the rest goes back to the teleport, rather than leading the map."""
    return max(1.0, sum(prior[f] for f in files))


__all__ = [
    "Graph",
    "Key",
    "claimed_by",
    "definers_by_family",
    "family_of",
    "file_prior",
    "graph_fingerprint",
]
