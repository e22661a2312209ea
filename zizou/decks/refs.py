"""Which deck a reference names, as `zizou run REF` and `/run REF` both take it: a known deck's
name, the path of one, or a deck file given by path and loaded with the others."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from zizou.decks.loader import load_decks
from zizou.errors import UsageError

if TYPE_CHECKING:
    from zizou.decks.spec import Deck, DeckSet
    from zizou.hooks.sources import TrustStore


def looks_like_path(ref: str) -> bool:
    """A deck reference that names a file (`decks/x.deck.md`), not a deck's name."""
    return "/" in ref or ref.endswith((".md", ".py"))


def resolve_or_load(
    decks: DeckSet,
    ref: str,
    cwd: Path,
    root: Path,
    config_dir: Path | None,
    *,
    trust: TrustStore | None = None,
    trust_all: bool = False,
) -> tuple[DeckSet, Deck]:
    """The deck `ref` names, as `zizou run REF` and `/run REF` both take it: a known deck's
    name or path, else a deck file given by path, loaded with the others (its actions may
    name decks beside it); the deck set it belongs to, and the deck."""
    if looks_like_path(ref) and decks.get(ref) is None:
        path = Path(os.path.normpath(cwd / ref))
        if decks.by_path(path) is None:
            decks = load_decks(root, config_dir, trust=trust, trust_all=trust_all, extra=(path,))
    return decks, resolve(decks, ref, cwd)


def resolve(decks: DeckSet, ref: str, cwd: Path) -> Deck:
    """The deck `ref` names: a deck's name, or the path of a deck file (relative to `cwd`);
    a UsageError naming the known decks when it is neither."""
    deck = decks.get(ref)
    if deck is not None:
        return deck
    candidate = Path(os.path.normpath(cwd / ref))
    deck = decks.by_path(candidate)
    if deck is not None:
        return deck
    real = Path(os.path.realpath(candidate))
    found = [str(p) for p in decks.problems if p.path in (candidate, real)]
    if found:
        raise UsageError(f"the deck {ref} has problems:\n" + "\n".join(found))
    names = ", ".join(sorted(decks.decks)) or "none"
    raise UsageError(
        f"no deck named {ref!r} (and no deck file there): the decks here are {names}; "
        "`zizou decks list` shows them, `zizou decks check` shows why one is missing"
    )


__all__ = ["looks_like_path", "resolve", "resolve_or_load"]
