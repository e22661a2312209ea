"""Counts in words, so that one of a thing reads "1 turn", not "1 turns" or "1 turn(s)"."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`counted(1, "line")` is "1 line", `counted(1200, "line")` "1,200 lines"; `plural` for
    nouns that do not take an s ("entry", "entries")."""
    word = noun if count == 1 else plural or f"{noun}s"
    return f"{count:,} {word}"


__all__ = ["counted"]
