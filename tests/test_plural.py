"""Counts in words: one of a thing is singular, whatever the noun."""

from __future__ import annotations

import pytest

from zizou.plural import counted


@pytest.mark.parametrize(
    ("count", "noun", "plural", "words"),
    [
        (0, "turn", None, "0 turns"),
        (1, "turn", None, "1 turn"),
        (2, "problem", None, "2 problems"),
        (1200, "line", None, "1,200 lines"),
        (1, "entry", "entries", "1 entry"),
        (3, "entry", "entries", "3 entries"),
    ],
)
def test_counted(count: int, noun: str, plural: str | None, words: str) -> None:
    assert counted(count, noun, plural) == words
