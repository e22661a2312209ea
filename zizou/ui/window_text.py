"""How the workspace's windows read in the app: `/workspace` and `/drop` listings, the sidebar's
rows, the `@path` mentions a message names, and the context in use.

All pure: a `WindowInfo` (core/workspace.py) or a message's text in, words out.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zizou.contracts.workspace import WindowInfo

REASON_CHARS = 60  # of a lost window's reason, in the sidebar
# `@src/app.py`, `@src/app.py:10-20`, `@src/app.py#/def main/` (its regex may hold spaces), not
# inside a word or an address.
_MENTION = re.compile(r"(?<![\w@])@(?:(\S+?#/(?:\\.|[^\\\n])*?/)(?=[\s.,;:!?)\]]|$)|([^\s@`'\"]+))")
_TRAILING = ".,;:!?)]}>"


def anchored(info: WindowInfo) -> bool:
    """The window is found by a text or regex anchor (not the whole file, not line numbers)."""
    return info.spec != "whole file" and not info.spec.startswith("lines ")


def lines_of(info: WindowInfo) -> str:
    """`12-30` where it was last seen; before its first render, its spec (`lines 12-end`)."""
    if info.span is None:
        return info.spec
    return f"{info.span[0]}-{info.span[1]}"


def reason(info: WindowInfo, limit: int = REASON_CHARS) -> str:
    """Why a window is not shown whole, in a few words."""
    if info.status == "collapsed":
        return "collapsed to fit the workspace's budget"
    if info.status == "cut":
        return "cut: too long to show whole"
    note = info.note.removeprefix("not found: ").split(";")[0].strip()
    if not note:
        return info.status
    return note if len(note) <= limit else note[: limit - 1].rstrip() + "…"


def describe(info: WindowInfo) -> str:
    """One line of `/workspace`: `w3  src/app.py  lines 12-30  /def helper/  lost: why`."""
    parts = [info.id, info.path]
    if info.span is not None:
        parts.append(f"lines {info.span[0]}-{info.span[1]}")
    if anchored(info) or info.span is None:
        parts.append(info.spec)
    if info.span is None and info.status == "open":
        parts.append("shown from the next step")
    if info.status in ("lost", "missing"):
        parts.append(f"{info.status}: {info.note or 'not found'}")
    elif info.status in ("collapsed", "cut"):
        parts.append(reason(info))
    elif info.note:
        parts.append(info.note)
    return "  ".join(parts)


def listing(windows: tuple[WindowInfo, ...]) -> str:
    if not windows:
        return "The workspace is empty."
    count = f"{len(windows)} window" + ("s" if len(windows) != 1 else "")
    head = f"Workspace: {count}, shown to the model at every step:"
    return "\n".join([head, *(f"  {describe(info)}" for info in windows)])


def open_names(windows: tuple[WindowInfo, ...]) -> str:
    """`w1 a.py, w2 b.py 3-9`: what `/drop` can take."""
    if not windows:
        return "nothing is open"
    return ", ".join(f"{w.id} {w.path}" for w in windows)


def mentions(text: str) -> list[str]:
    """The `@PATH`, `@PATH:10-20` and `@PATH#/regex/` tokens of a message, each once, without
    the `@` and without the punctuation that ends a sentence."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        token = match.group(1) or match.group(2).rstrip(_TRAILING)
        if token and token not in found:
            found.append(token)
    return found


def context_use(tokens: int, window: int | None) -> str:
    """`ctx 12%` of the model's context window; `ctx 3.2k` tokens when the window is unknown;
    empty before the first request."""
    if tokens <= 0:
        return ""
    return f"ctx {share(tokens, window) if window else _count(tokens)}"


def spend_use(
    spent_usd: float, max_usd: float | None, tokens: int, max_tokens: int | None
) -> tuple[str, float]:
    """The spend against the run's caps, `$0.42/$2.00` and `12.3k/50.0k tok`, and the larger
    share of a cap used; ("", 0.0) without a cap."""
    parts: list[str] = []
    shares: list[float] = []
    if max_usd:
        parts.append(f"${spent_usd:.2f}/${max_usd:.2f}")
        shares.append(spent_usd / max_usd)
    if max_tokens:
        parts.append(f"{_count(tokens)}/{_count(max_tokens)} tok")
        shares.append(tokens / max_tokens)
    return " ".join(parts), max(shares, default=0.0)


def share(tokens: int, window: int) -> str:
    """`12%` of the context window (`<1%` rather than a misleading 0%)."""
    percent = 100 * tokens / window
    return "<1%" if percent < 1 else f"{round(percent)}%"


def _count(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


__all__ = [
    "anchored",
    "context_use",
    "describe",
    "lines_of",
    "listing",
    "mentions",
    "open_names",
    "reason",
    "share",
    "spend_use",
]
