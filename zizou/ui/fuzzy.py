"""Fuzzy ranking for `@` file completion and `/` command completion: pure and table-tested.

A candidate matches when the query's characters appear in it in order. Matches score higher
when they start words or path parts, run together, and fall in the file name.
"""

from __future__ import annotations

from collections.abc import Iterable

_SEPARATORS = "/_-. "


def fuzzy_score(query: str, candidate: str) -> int | None:
    """A score (higher is better), or None when `candidate` does not contain `query` in order."""
    if not query:
        return 0
    q, c = query.casefold(), candidate.casefold()
    name_start = c.rfind("/") + 1
    score, position, previous = 0, 0, -2
    for ch in q:
        found = c.find(ch, position)
        if found < 0:
            return None
        score += 1
        if found == previous + 1:
            score += 4
        if found == 0 or c[found - 1] in _SEPARATORS:
            score += 6
        if found >= name_start:
            score += 2
        previous, position = found, found + 1
    if q in c[name_start:]:
        score += 10
    return score * 100 - len(candidate)


def rank(query: str, candidates: Iterable[str], limit: int = 10) -> list[str]:
    """The best `limit` candidates for `query`, best first."""
    scored = [(s, c) for c in candidates if (s := fuzzy_score(query, c)) is not None]
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [c for _, c in scored[:limit]]


__all__ = ["fuzzy_score", "rank"]
