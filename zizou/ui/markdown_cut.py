"""Where a streamed Markdown answer can be cut into finished stretches: after a paragraph break
that is not inside a code fence, so each piece renders as it would inside the whole."""

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


def split_stretches(text: str, size: int) -> list[str]:
    """`text` (which ends at a safe cut) as stretches of about `size` characters or more, each
    ending at a paragraph break outside a code fence. Joined, they are `text` again."""
    stretches: list[str] = []
    start = position = 0
    fenced = False
    for line in text.splitlines(keepends=True):
        position += len(line)
        if line.lstrip().startswith(_FENCES):
            fenced = not fenced
        elif not fenced and not line.strip() and position - start >= size:
            stretches.append(text[start:position])
            start = position
    if start < len(text):
        stretches.append(text[start:])
    return stretches


def _open_fences(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.lstrip().startswith(_FENCES))


__all__ = ["safe_cut", "split_stretches"]
