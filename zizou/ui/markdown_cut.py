"""Where a streamed Markdown answer can be cut into a finished stretch and the rest: after a
paragraph break that is not inside a code fence, so both halves render as they would whole."""

from __future__ import annotations

_FENCES = ("```", "~~~")


def safe_cut(text: str, minimum: int) -> int:
    """Where `text` can be cut into a finished stretch and the rest: just after the last
    paragraph break outside a code fence, at or after `minimum`. 0 when there is none."""
    position = len(text)
    while (position := text.rfind("\n\n", 0, position)) >= minimum:
        if _open_fences(text[:position]) % 2 == 0:
            return position + 2
    return 0


def _open_fences(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.lstrip().startswith(_FENCES))


__all__ = ["safe_cut"]
