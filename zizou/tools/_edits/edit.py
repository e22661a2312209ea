"""What the engine's parts pass each other: an edit, the spans it replaces, the result."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Edit:
    """Replace `old` with `new`: once, or at every place with `replace_all`."""

    old: str
    new: str
    replace_all: bool = False


class Refused(Exception):
    """The edit cannot be made; the message says why and what to send instead."""


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of the text, and what replaces them."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Change:
    """One replaced span of a text: where it starts, its length before and after."""

    start: int
    old_len: int
    new_len: int


@dataclass(frozen=True)
class Landed:
    """An edit made: the text after it, its spans (offsets in the text before it), and the
    normalisations its match needed (none when old_string matched exactly)."""

    text: str
    changes: tuple[Change, ...]
    normalised: tuple[str, ...]
    corrected: tuple[str, ...] = ()  # what of the model's lines was written otherwise

    @property
    def how(self) -> str:
        """What the result says of the match: nothing when it was exact, else (for instance)
        " (matched after normalising indentation and blank lines)", and what was written
        otherwise than sent ("; wrote straight quotes as the file has them")."""
        if not self.normalised and not self.corrected:
            return ""
        said = f"matched after normalising {in_words(self.normalised)}" if self.normalised else ""
        return " (" + "; ".join(part for part in (said, *self.corrected) if part) + ")"


def in_words(names: tuple[str, ...]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
