"""From file ranks to the best definitions: each scores the flow that reaches it by its name.

A definition's score is the rank flowing into its file through its name (shared between the files
defining that name), plus a sliver of its file's own rank so that definitions nobody uses are
still ordered by how central their file is. The best definition of each file related to the
focus (its users and tests: related.py) is lifted by RELATED_LIFT of the focus's rank, times how
related the file is: about what one of the focus's main uses receives, so the file shows among
what the focus uses, above code that is only central. Definitions asked for by name,
or in files asked to be shown, are lifted above all others. Scores are computed as flat lists in
path and line order, and the best are taken in a stable order, so equal scores keep that order.
"""

from __future__ import annotations

import bisect
import heapq
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice, repeat
from operator import add, mul

from zizou.repomap.graph import Graph
from zizou.repomap.rank import Ranks, gather

FILE_RANK_SHARE = 0.01  # of a file's rank, spread over its definitions
TOP_TIER = 1.0  # added to asked-for definitions; flows are always below 1
HIDDEN = -1.0e9  # pinned files' definitions: below everything, then dropped
MIN_KEPT_BEST = 1024  # definitions kept in score order per ranks
RELATED_LIFT = 0.1  # of the focus's rank, times how related, to a related file's best definition


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    path: str
    line: int
    name: str
    kind: str


@dataclass(frozen=True)
class Boosts:
    names: frozenset[str] = frozenset()  # their definitions go to the top
    files: frozenset[str] = frozenset()  # all their definitions go to the top
    hidden: frozenset[str] = frozenset()  # already in the prompt (pinned): left out


def top_definitions(graph: Graph, ranks: Ranks, boosts: Boosts, limit: int) -> list[Scored]:
    """The `limit` best definitions, best first; equal scores keep path and line order.

    The scores and the best of them are kept with the ranks (Ranks.derived); a request's lifts
    touch only the definitions it boosts or hides, which go first or not at all."""
    total = graph.def_bounds[-1]
    if total == 0 or limit <= 0:
        return []
    scores = ranks.derived.get("scores")
    if scores is None:
        scores = ranks.derived["scores"] = array("d", _scores(graph, ranks))
    lifted = _lifted(graph, boosts, scores)
    kept = sorted(index for index, score in lifted.items() if score > HIDDEN / 2)
    first = sorted(kept, key=lifted.__getitem__, reverse=True)  # above every other definition
    rest = (index for index in _best(ranks, scores, limit + len(lifted)) if index not in lifted)
    best = [*first, *islice(rest, max(0, limit - len(first)))][:limit]
    return [_scored(graph, index, lifted.get(index, scores[index])) for index in best]


def _best(ranks: Ranks, scores: Sequence[float], count: int) -> list[int]:
    """The `count` best definitions by score alone, best first (a stable order: equal scores by
    index), taken again, four times as many, when a request needs more than were kept."""
    best: list[int] | None = ranks.derived.get("best")
    if best is None or (len(best) < count < len(scores)):
        wanted = max(count * 4, MIN_KEPT_BEST)
        best = heapq.nlargest(wanted, range(len(scores)), key=scores.__getitem__)
        ranks.derived["best"] = best
    return best


def _scores(graph: Graph, ranks: Ranks) -> list[float]:
    flows = [*ranks.flows, 0.0]  # the extra slot is the flow of names no other file uses
    by_name = list(map(mul, gather(graph.def_ident)(flows), graph.def_share))
    bounds = graph.def_bounds
    per_file: list[float] = []
    for index, rank in enumerate(ranks.files):
        count = bounds[index + 1] - bounds[index]
        if count:
            per_file.extend(repeat(FILE_RANK_SHARE * rank / count, count))
    scores = list(map(add, by_name, per_file))
    if ranks.related:
        for index, related in sorted(ranks.related.items()):
            low, high = bounds[index], bounds[index + 1]
            if low < high:
                best = max(range(low, high), key=lambda flat: (scores[flat], -flat))
                scores[best] += RELATED_LIFT * related
    return scores


def _lifted(graph: Graph, boosts: Boosts, scores: Sequence[float]) -> dict[int, float]:
    """The scores of the definitions a request lifts or hides, by flat index, after its lifts
    (added in a fixed order, so the sums are the same at every render)."""
    bounds = graph.def_bounds
    lifted: dict[int, float] = {}
    for path in sorted(boosts.hidden | boosts.files):
        index = bisect.bisect_left(graph.paths, path)
        if index < len(graph.paths) and graph.paths[index] == path:
            lift = HIDDEN if path in boosts.hidden else TOP_TIER
            for flat in range(bounds[index], bounds[index + 1]):
                lifted[flat] = lifted.get(flat, scores[flat]) + lift
    names = graph.def_name
    for name in sorted(boosts.names):
        for index in graph.definers_of(name):
            for flat in range(bounds[index], bounds[index + 1]):
                if names[flat] == name:
                    lifted[flat] = lifted.get(flat, scores[flat]) + TOP_TIER
    return lifted


def _scored(graph: Graph, index: int, score: float) -> Scored:
    path = graph.paths[_file_of(graph.def_bounds, index)]
    return Scored(score, path, graph.def_line[index], graph.def_name[index], graph.def_kind[index])


def _file_of(bounds: tuple[int, ...], index: int) -> int:
    return bisect.bisect_right(bounds, index) - 1


def ranked_files(graph: Graph, ranks: Ranks, hidden: frozenset[str]) -> list[str]:
    """Parsed files by rank, best first (ties by path)."""
    files, paths = ranks.files, graph.paths
    order: list[int] | None = ranks.derived.get("files")
    if order is None:
        order = sorted(range(len(paths)), key=lambda i: (-files[i], paths[i]))
        ranks.derived["files"] = order
    return [graph.paths[i] for i in order if graph.paths[i] not in hidden]


__all__ = ["Boosts", "Scored", "ranked_files", "top_definitions"]
