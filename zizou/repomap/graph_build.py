"""Building the ranking graph (graph.py) from every file's tags, once per set of tags.

A file's uses of its own names, and a language's common names (common_names.py), are no edges.
An edge weighs sqrt(uses) + w * sqrt(weak uses), times how surely a use means the project's
definition: a weak use (`x.name`, or a bare name passed as a value) has w = 1/4, and 1/20 for a
plain lowercase word (`x.text`: whose?); a `_private` name counts a tenth, a name defined in many
files less again, and uses from tests, fixtures and stubs a fifth (graph.file_prior).

This runs after every cold parse and every edit, so it works a language family at a time with
plain dicts of names, and builds the flat tuples column by column.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from zizou.repomap.common_names import COMMON_NAMES
from zizou.repomap.graph import (
    Graph,
    Key,
    claimed_by,
    definers_by_family,
    family_of,
    file_prior,
)
from zizou.repomap.tags import FileTags

WEAK_WEIGHT = 0.25  # `x.name` (whose?) or a bare name as a value (a local?)
PRIVATE_FACTOR = 0.1  # `_name`: used across files rarely, and then on purpose
PLAIN_WORD_FACTOR = 0.2  # weak `x.get`, `x.text`: as likely a library's attribute as ours
CLEAR_DEFINERS = 2  # a name defined in more files than this is ambiguous in proportion
_NONE: frozenset[str] = frozenset()

Defined = dict[str, dict[str, list[int]]]  # family -> name -> defining files, in path order
Uses = dict[Key, list[tuple[int, float]]]  # used name -> (using file, edge weight), path order


def build_graph(tags: Mapping[str, FileTags]) -> Graph:
    paths = tuple(sorted(tags))
    file_tags = tuple(tags[path] for path in paths)
    file_family = tuple(family_of(ft.language) for ft in file_tags)
    prior = tuple(file_prior(path) for path in paths)
    def_bounds = [0]
    def_name: list[str] = []
    def_line: list[int] = []
    def_kind: list[str] = []
    for ft in file_tags:
        if ft.defs:
            names_here, lines_here, kinds_here = zip(*ft.defs, strict=True)
            def_name.extend(names_here)
            def_line.extend(lines_here)
            def_kind.extend(kinds_here)
        def_bounds.append(len(def_name))
    defined = definers_by_family(file_family, def_bounds, def_name)
    uses = _uses(file_tags, file_family, prior, defined)
    names = tuple(sorted(uses))
    edge_file: list[int] = []
    edge_weight: list[float] = []
    edge_bounds = [0]
    for key in names:
        for index, edge in uses[key]:
            edge_file.append(index)
            edge_weight.append(edge)
        edge_bounds.append(len(edge_file))
    definers = tuple(tuple(defined[family][name]) for family, name in names)
    def_ident, def_share = _def_links(names, definers, file_family, prior, def_bounds, def_name)
    return Graph(
        paths=paths,
        file_family=file_family,
        prior=prior,
        names=names,
        edge_file=tuple(edge_file),
        edge_weight=tuple(edge_weight),
        edge_bounds=tuple(edge_bounds),
        definers=definers,
        def_bounds=tuple(def_bounds),
        def_name=tuple(def_name),
        def_line=tuple(def_line),
        def_kind=tuple(def_kind),
        def_ident=def_ident,
        def_share=def_share,
        references=sum(len(ft.refs) for ft in file_tags),
    )


def _uses(
    file_tags: tuple[FileTags, ...],
    file_family: tuple[str, ...],
    prior: tuple[float, ...],
    defined: Defined,
) -> Uses:
    uses: Uses = {}
    weights: dict[Key, tuple[float, float]] = {}
    sqrt = math.sqrt
    for index, ft in enumerate(file_tags):
        own = {d[0] for d in ft.defs}
        credence = prior[index]  # a test's or a stub's uses vouch for less
        common = COMMON_NAMES.get(ft.language, _NONE)
        family = file_family[index]
        here = defined.get(family, {})
        for name, strong, weak in ft.refs:
            files = here.get(name)
            if files is None or name in own or name in common:
                continue
            key = (family, name)
            pair = weights.get(key)
            if pair is None:
                pair = weights[key] = _name_weights(name, len(files))
            factor, weak_weight = pair
            edge = (sqrt(strong) + weak_weight * sqrt(weak)) * factor * credence
            edges = uses.get(key)
            if edges is None:
                uses[key] = [(index, edge)]
            else:
                edges.append((index, edge))
    return uses


def _name_weights(name: str, definers: int) -> tuple[float, float]:
    """(factor of the whole edge, weight of one weak use): how surely a use of `name` means the
    project's definition of it."""
    clear = min(1.0, CLEAR_DEFINERS / definers)
    if name.startswith("_"):
        return PRIVATE_FACTOR * clear, WEAK_WEIGHT
    if name.islower() and name.isalnum():
        return clear, WEAK_WEIGHT * PLAIN_WORD_FACTOR
    return clear, WEAK_WEIGHT


def _def_links(
    names: tuple[Key, ...],
    definers: tuple[tuple[int, ...], ...],
    file_family: tuple[str, ...],
    prior: tuple[float, ...],
    bounds: list[int],
    def_name: list[str],
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    """Per definition: the index of its name in `names` (len(names) when no other file uses it)
    and its file's share of that name's flow (0 when unused)."""
    unused = len(names)
    index_of: dict[str, dict[str, int]] = {}
    for j, (family, name) in enumerate(names):
        index_of.setdefault(family, {})[name] = j
    totals = [claimed_by(files, prior) for files in definers]
    idents: list[int] = []
    shares: list[float] = []
    for index, family in enumerate(file_family):
        here = index_of.get(family, {})
        own = prior[index]
        for name in def_name[bounds[index] : bounds[index + 1]]:
            j = here.get(name, unused)
            idents.append(j)
            shares.append(0.0 if j == unused else own / totals[j])
    return tuple(idents), tuple(shares)


__all__ = ["build_graph"]
