"""Building the ranking graph (graph.py) from every file's tags, folded in one file at a time.

A file's uses of its own names, and a language's common names (common_names.py), are no edges.
An edge weighs sqrt(uses) + w * sqrt(weak uses), times how surely a use means the project's
definition: a weak use (`x.name`, or a bare name passed as a value) has w = 1/4, and 1/20 for a
plain lowercase word (`x.text`: whose?); a `_private` name counts a tenth, a name defined in many
files less again, and uses from tests, fixtures and stubs a fifth (graph.file_prior).

A cold map parses in a pool, and the tags come back in batches while the pool parses the rest, so
the GraphBuilder does the per-use work as each file arrives (`add`), keeping uses and definers by
name, and `build` only orders them: the main process works beside the pool, not after it, and
keeps of a file's uses one float each, not its tags. An edit folds one file out and in again.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import repeat
from operator import mul, truediv

from zizou.repomap.common_names import COMMON_NAMES
from zizou.repomap.graph import Graph, Key, claimed_by, family_of, file_prior
from zizou.repomap.tags import FileTags

WEAK_WEIGHT = 0.25  # `x.name` (whose?) or a bare name as a value (a local?)
PRIVATE_FACTOR = 0.1  # `_name`: used across files rarely, and then on purpose
PLAIN_WORD_FACTOR = 0.2  # weak `x.get`, `x.text`: as likely a library's attribute as ours
CLEAR_DEFINERS = 2  # a name defined in more files than this is ambiguous in proportion
_NONE: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Folded:
    """What the builder keeps of one file: its definitions as columns, and which names it was
    counted under (to fold it out again)."""

    family: str
    prior: float
    def_name: tuple[str, ...]
    def_line: tuple[int, ...]
    def_kind: tuple[str, ...]
    defines: tuple[str, ...]  # distinct names it defines, in line order
    uses: tuple[str, ...]  # names it uses that may be edges (not its own, not common)
    references: int


class GraphBuilder:
    """The graph of the files folded in so far; `add` in any order gives the same graph."""

    def __init__(self) -> None:
        self._files: dict[str, _Folded] = {}
        # family -> name -> {using file: sqrt(uses) + w * sqrt(weak uses)}
        self._users: dict[str, dict[str, dict[str, float]]] = {}
        self._definers: dict[str, dict[str, dict[str, None]]] = {}  # family -> name -> files

    def __contains__(self, path: str) -> bool:
        return path in self._files

    def __len__(self) -> int:
        return len(self._files)

    def paths(self) -> set[str]:
        return set(self._files)

    def add(self, path: str, tags: FileTags) -> None:
        """Fold in `path`'s tags, replacing what it had."""
        self.discard(path)
        family = family_of(tags.language)
        names, lines, kinds = zip(*tags.defs, strict=True) if tags.defs else ((), (), ())
        defines = tuple(dict.fromkeys(names))
        definers = self._definers.setdefault(family, {})
        for name in defines:
            files = definers.get(name)
            if files is None:
                definers[name] = {path: None}
            else:
                files[path] = None
        common = COMMON_NAMES.get(tags.language, _NONE)
        own = set(defines)
        users = self._users.setdefault(family, {})
        used: list[str] = []
        sqrt = math.sqrt
        # The hot loop of a cold map. A float per use is kept, not the tags' tuples: hundreds of
        # thousands fewer objects for the garbage collector to walk.
        for name, strong, weak in tags.refs:
            if name in common or name in own:
                continue
            edge = sqrt(strong) + _weak_weight(name) * sqrt(weak) if weak else sqrt(strong)
            files_using = users.get(name)
            if files_using is None:
                users[name] = {path: edge}
            else:
                files_using[path] = edge  # (two spellings that decode alike: the last counts)
            used.append(name)
        folded = _Folded(
            family, file_prior(path), names, lines, kinds, defines, tuple(used), len(tags.refs)
        )
        self._files[path] = folded

    def discard(self, path: str) -> None:
        folded = self._files.pop(path, None)
        if folded is None:
            return
        definers = self._definers[folded.family]
        for name in folded.defines:
            files = definers[name]
            del files[path]
            if not files:
                del definers[name]
        users = self._users[folded.family]
        for name in folded.uses:
            files_using = users.get(name)
            if files_using is not None:  # (None: a name the file spelt twice, gone already)
                files_using.pop(path, None)
                if not files_using:
                    del users[name]

    def build(self) -> Graph:
        paths = tuple(sorted(self._files))
        folded = [self._files[path] for path in paths]
        index_of = {path: index for index, path in enumerate(paths)}
        prior = tuple(f.prior for f in folded)
        names, edges, definers = self._edges(index_of, prior)
        def_bounds = [0]
        def_name: list[str] = []
        def_line: list[int] = []
        def_kind: list[str] = []
        for f in folded:
            def_name.extend(f.def_name)
            def_line.extend(f.def_line)
            def_kind.extend(f.def_kind)
            def_bounds.append(len(def_name))
        def_ident, def_share = _def_links(names, definers, folded, prior)
        return Graph(
            paths=paths,
            file_family=tuple(f.family for f in folded),
            prior=prior,
            names=names,
            edge_file=tuple(edges[0]),
            edge_weight=tuple(edges[1]),
            edge_bounds=tuple(edges[2]),
            definers=definers,
            def_bounds=tuple(def_bounds),
            def_name=tuple(def_name),
            def_line=tuple(def_line),
            def_kind=tuple(def_kind),
            def_ident=def_ident,
            def_share=def_share,
            references=sum(f.references for f in folded),
        )

    def _edges(
        self, index_of: dict[str, int], prior: tuple[float, ...]
    ) -> tuple[
        tuple[Key, ...], tuple[list[int], list[float], list[int]], tuple[tuple[int, ...], ...]
    ]:
        """The names with a definer and a user in another file, sorted; their use edges, grouped
        by name in path order (files, weights, bounds); and their definers in path order."""
        keys: list[Key] = []
        for family, users in self._users.items():
            defined = self._definers.get(family, {})
            keys.extend((family, name) for name in users.keys() & defined.keys())
        names = tuple(sorted(keys))
        edge_file: list[int] = []
        edge_weight: list[float] = []
        edge_bounds = [0]
        definers: list[tuple[int, ...]] = []
        at = index_of.__getitem__
        for family, name in names:
            files = tuple(sorted(map(at, self._definers[family][name])))
            definers.append(files)
            using = self._users[family][name]
            factor = _name_factor(name, len(files))
            if len(using) == 1:
                ((path, edge),) = using.items()
                index = at(path)
                edge_file.append(index)
                edge_weight.append(edge * factor * prior[index])
            else:
                by_file = sorted(zip(map(at, using), using.values(), strict=True))
                indexes = [index for index, _ in by_file]
                weighed = map(mul, [edge for _, edge in by_file], repeat(factor))
                edge_weight.extend(map(mul, weighed, map(prior.__getitem__, indexes)))
                edge_file.extend(indexes)
            edge_bounds.append(len(edge_file))
        return names, (edge_file, edge_weight, edge_bounds), tuple(definers)


def build_graph(tags: Mapping[str, FileTags]) -> Graph:
    builder = GraphBuilder()
    for path, file_tags in tags.items():
        builder.add(path, file_tags)
    return builder.build()


def _weak_weight(name: str) -> float:
    """The weight of one weak use of `name`: a plain lowercase word is as likely a library's."""
    if not name.startswith("_") and name.islower() and name.isalnum():
        return WEAK_WEIGHT * PLAIN_WORD_FACTOR
    return WEAK_WEIGHT


def _name_factor(name: str, definers: int) -> float:
    """How surely a use of `name` means the project's definition of it."""
    clear = min(1.0, CLEAR_DEFINERS / definers)
    return PRIVATE_FACTOR * clear if name.startswith("_") else clear


def _def_links(
    names: tuple[Key, ...],
    definers: tuple[tuple[int, ...], ...],
    folded: list[_Folded],
    prior: tuple[float, ...],
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Per definition: the index of its name in `names` (len(names) when no other file uses it)
    and its file's share of that name's flow (0 when unused: a share of an infinite total)."""
    unused = len(names)
    index_of: dict[str, dict[str, int]] = {}
    for j, (family, name) in enumerate(names):
        index_of.setdefault(family, {})[name] = j
    totals = [claimed_by(files, prior) for files in definers] + [math.inf]
    idents: list[int] = []
    shares: list[float] = []
    for index, f in enumerate(folded):
        here = index_of.get(f.family, {})
        found = list(map(here.get, f.def_name, repeat(unused)))
        idents.extend(found)
        shares.extend(map(truediv, repeat(prior[index]), map(totals.__getitem__, found)))
    return tuple(idents), tuple(shares)


__all__ = ["GraphBuilder", "build_graph"]
