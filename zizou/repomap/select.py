"""From a request to the map text: focus, ranking, and fitting the budget, with their timings.

Pinned files (`focus`) and files the message names pull the walk towards them, and bring their
users and tests into the map (related.py); identifiers the message names are boosted, and those
defined in only a few places (or asked for by the tool) go to the top. Pinned files' own
definitions are left out, since the WORKSPACE layer shows them whole, unless the request asks to
see them first (the repo_map tool).
"""

from __future__ import annotations

import time

from zizou.repomap.files import ProjectFiles
from zizou.repomap.mentions import Mentions
from zizou.repomap.rank import Focus, Ranker
from zizou.repomap.render import Item, Shown, clean_line, fit
from zizou.repomap.request import MapRequest, MapResult, MapStats
from zizou.repomap.score import Boosts, Scored, ranked_files, top_definitions
from zizou.repomap.signatures import SignatureCache
from zizou.repomap.tokens import TokenCounter

MAX_TOP_DEFINERS = 5  # a name the message mentions goes to the top only if it is this specific


def select_map(
    signatures: SignatureCache,
    ranker: Ranker,
    files: ProjectFiles,
    request: MapRequest,
    mentions: Mentions,
    counter: TokenCounter,
) -> MapResult:
    started = time.perf_counter()
    graph = ranker.graph
    focus = _expand(request.focus, [*graph.paths, *files.others])
    weights = dict.fromkeys(sorted(set(focus) | set(mentions.files)), 1.0)
    names = tuple(sorted(set(mentions.identifiers) | set(request.identifiers)))
    related = ranker.relatives.of(weights)
    ranks = ranker.ranks(Focus(weights, names, related))
    top = set(request.identifiers) | {
        name
        for name in mentions.identifiers
        if 0 < len(graph.definers_of(name)) <= MAX_TOP_DEFINERS
    }
    boosts = Boosts(
        names=frozenset(top),
        files=frozenset(focus if request.show_focus else ()),
        hidden=frozenset(
            ()
            if request.show_focus
            else focus
            if request.hide is None
            else _expand(request.hide, [*graph.paths, *files.others])
        ),
    )
    ranked = time.perf_counter()
    by_name = [
        *ranked_files(graph, ranks, boosts.hidden),
        *(path for path in files.others if path not in boosts.hidden),
    ]
    missing = [name for name in request.identifiers if not graph.definers_of(name)]
    note = clean_line(f"No definition found for: {', '.join(missing)}") + "\n" if missing else ""
    note_tokens = counter.count(note) if note else 0  # the map is counted by line: render.py
    budget = request.max_tokens - note_tokens
    limit = max(32, request.max_tokens // 4)
    while True:
        defs = _shown(signatures, files, top_definitions(graph, ranks, boosts, limit))
        items: list[Item] = [*defs, *by_name]
        fitted = fit(items, budget, counter)
        if fitted.definitions < len(defs) or len(defs) < limit:
            break
        limit *= 4
    text = note + fitted.text
    tokens = note_tokens + fitted.tokens
    done = time.perf_counter()
    stats = MapStats(
        definitions=graph.def_bounds[-1],
        references=graph.references,
        shown_definitions=fitted.definitions,
        shown_files=fitted.files,
        tokens=tokens,
        budget=request.max_tokens,
        tokenizer=counter.name,
        rank_s=ranked - started,
        render_s=done - ranked,
    )
    return MapResult(text, stats)


def _shown(signatures: SignatureCache, files: ProjectFiles, defs: list[Scored]) -> list[Shown]:
    """The definitions with their signatures, each file read once (or not, if read before)."""
    wanted: dict[str, list[tuple[int, str]]] = {}
    for item in defs:
        wanted.setdefault(item.path, []).append((item.line, item.kind))
    by_path = files.by_path
    signature_of = {
        path: signatures.read(by_path.get(path), path, lines) for path, lines in wanted.items()
    }
    return [Shown(d.path, d.line, signature_of[d.path].get(d.line, d.name)) for d in defs]


def _expand(focus: tuple[str, ...], paths: list[str]) -> tuple[str, ...]:
    """Focus entries are files or directories; "." (the whole project) is no focus at all."""
    wanted = sorted({f.strip("/") for f in focus} - {".", ""})
    if not wanted:
        return ()
    prefixes = tuple(f + "/" for f in wanted)
    exact = set(wanted)
    return tuple(sorted(p for p in paths if p in exact or p.startswith(prefixes)))


__all__ = ["select_map"]
