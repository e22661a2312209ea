"""The ranking graph: which files use and which define each name, built once per set of tags.

It is bipartite and small: file -> name edges, one per file and name it uses, and name -> file
edges, one per file defining the name (which share its flow by their priors). Walking
file -> name -> file is PageRank on "file A uses what file B defines" without materialising file
pairs, which for names like `get` would be quadratic. A file's uses of its own names, and a
language's common names (common_names.py), are no edges.

Names are kept per language family (a Python file's `User` is not a TypeScript file's `User`).
An edge weighs sqrt(uses) + w * sqrt(weak uses), times how surely a use means the project's
definition: a weak use (`x.name`, or a bare name passed as a value) has w = 1/4, and 1/20 for a
plain lowercase word (`x.text`: whose?); a `_private` name counts a tenth, a name defined in many
files less again, and uses from tests, fixtures and stubs a fifth (file_prior). Everything is
laid out in a fixed order (files by path, names sorted), so later float sums are the same under
any hash seed. The graph is rebuilt only when some file's tags change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from zizou.repomap.common_names import COMMON_NAMES
from zizou.repomap.tags import FileTags

WEAK_WEIGHT = 0.25  # `x.name` (whose?) or a bare name as a value (a local?)
PRIVATE_FACTOR = 0.1  # `_name`: used across files rarely, and then on purpose
PLAIN_WORD_FACTOR = 0.2  # weak `x.get`, `x.text`: as likely a library's attribute as ours
CLEAR_DEFINERS = 2  # a name defined in more files than this is ambiguous in proportion
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
_NONE: frozenset[str] = frozenset()
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
    tags: tuple[FileTags, ...]  # aligned with paths
    names: tuple[Key, ...]  # names with a definer and a use in another file, sorted
    edge_file: tuple[int, ...]  # use edges grouped by name: the using file
    edge_weight: tuple[float, ...]
    edge_bounds: tuple[int, ...]  # name j's use edges are edge_bounds[j]:edge_bounds[j+1]
    definers: tuple[tuple[int, ...], ...]  # per name in `names`, the defining files
    defined: Mapping[Key, tuple[int, ...]]  # every defined name -> its files (lookups only)
    families: Mapping[str, tuple[Key, ...]]  # a bare name -> its keys, one per family
    name_index: Mapping[Key, int]  # names[j] -> j
    # Every definition, flat, in path then line order:
    def_bounds: tuple[int, ...]  # file i's definitions are def_bounds[i]:def_bounds[i+1]
    def_ident: tuple[int, ...]  # index into `names`, or len(names) when no other file uses it
    def_share: tuple[float, ...]  # its file's share of the name's flow (0 when unused)
    prior: tuple[float, ...]  # per file: its share of the uniform teleport (see file_prior)

    def definers_of(self, name: str) -> tuple[int, ...]:
        """Files defining `name` in any language, in path order."""
        return tuple(sorted(i for key in self.families.get(name, ()) for i in self.defined[key]))


def family_of(language: str) -> str:
    return FAMILIES.get(language, language)


def build_graph(tags: Mapping[str, FileTags]) -> Graph:
    paths = tuple(sorted(tags))
    file_tags = tuple(tags[path] for path in paths)
    defined = _definers(file_tags)
    weights = {key: _name_weights(key[1], len(files)) for key, files in defined.items()}
    uses: dict[Key, list[tuple[int, float]]] = {}
    sqrt = math.sqrt
    prior = tuple(file_prior(path) for path in paths)
    for index, ft in enumerate(file_tags):
        own = {d[0] for d in ft.defs}
        credence = prior[index]  # a test's or a stub's uses vouch for less
        common = COMMON_NAMES.get(ft.language, _NONE)
        family = family_of(ft.language)
        for name, strong, weak in ft.refs:
            pair = weights.get((family, name))
            if pair is None or name in own or name in common:
                continue
            factor, weak_weight = pair
            edge = (sqrt(strong) + weak_weight * sqrt(weak)) * factor * credence
            uses.setdefault((family, name), []).append((index, edge))
    names = tuple(sorted(uses))
    edge_file: list[int] = []
    edge_weight: list[float] = []
    edge_bounds = [0]
    for key in names:
        for index, edge in uses[key]:
            edge_file.append(index)
            edge_weight.append(edge)
        edge_bounds.append(len(edge_file))
    name_index = {key: j for j, key in enumerate(names)}
    def_bounds, def_ident, def_share = _flat_definitions(file_tags, name_index, defined, prior)
    families: dict[str, list[Key]] = {}
    for key in sorted(defined):
        families.setdefault(key[1], []).append(key)
    return Graph(
        paths=paths,
        tags=file_tags,
        names=names,
        edge_file=tuple(edge_file),
        edge_weight=tuple(edge_weight),
        edge_bounds=tuple(edge_bounds),
        definers=tuple(defined[key] for key in names),
        defined=defined,
        families={name: tuple(keys) for name, keys in families.items()},
        name_index=name_index,
        def_bounds=def_bounds,
        def_ident=def_ident,
        def_share=def_share,
        prior=prior,
    )


def file_prior(path: str) -> float:
    """How much a file counts, as a teleport target and as a voucher for what it uses: the
    project's own code fully; tests, fixtures, examples, docs and type stubs (`.pyi`: another
    module's interface) a fifth.

    Stubs and fixtures reference each other densely (a vendored typeshed is half of mypy), so
    counted fully they would soak up the rank that the project's code deserves.
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


def _definers(file_tags: tuple[FileTags, ...]) -> dict[Key, tuple[int, ...]]:
    found: dict[Key, list[int]] = {}
    for index, ft in enumerate(file_tags):
        family = family_of(ft.language)
        for name, _line, _kind in ft.defs:
            files = found.setdefault((family, name), [])
            if not files or files[-1] != index:
                files.append(index)
    return {key: tuple(files) for key, files in found.items()}


def _name_weights(name: str, definers: int) -> tuple[float, float]:
    """(factor of the whole edge, weight of one weak use): how surely a use of `name` means the
    project's definition of it."""
    clear = min(1.0, CLEAR_DEFINERS / definers)
    if name.startswith("_"):
        return PRIVATE_FACTOR * clear, WEAK_WEIGHT
    if name.islower() and name.isalnum():
        return clear, WEAK_WEIGHT * PLAIN_WORD_FACTOR
    return clear, WEAK_WEIGHT


def share(files: tuple[int, ...], index: int, prior: tuple[float, ...]) -> float:
    """The part of a name's flow that goes to one of its defining files: by prior, so a use of
    `Flask` goes mostly to the project's class and little to a test's subclass of it."""
    return prior[index] / sum(prior[f] for f in files)


def _flat_definitions(
    file_tags: tuple[FileTags, ...],
    name_index: Mapping[Key, int],
    defined: Mapping[Key, tuple[int, ...]],
    prior: tuple[float, ...],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[float, ...]]:
    unused = len(name_index)
    bounds = [0]
    idents: list[int] = []
    shares: list[float] = []
    for index, ft in enumerate(file_tags):
        family = family_of(ft.language)
        for name, _line, _kind in ft.defs:
            key = (family, name)
            j = name_index.get(key, unused)
            idents.append(j)
            shares.append(0.0 if j == unused else share(defined[key], index, prior))
        bounds.append(len(idents))
    return tuple(bounds), tuple(idents), tuple(shares)


__all__ = ["Graph", "Key", "build_graph", "family_of", "file_prior", "share"]
