"""How a turn that ended early is told: live, and again when its session is resumed (where the
file keeps the reason, not the words)."""

from __future__ import annotations

from zizou.ui.widgets.messages import NoticeKind

INTERRUPTED = (
    "Interrupted: the stream was closed and running commands were stopped; "
    "the conversation so far is kept."
)
ENDINGS: dict[str, tuple[str, NoticeKind]] = {
    "cancelled": (INTERRUPTED, "warning"),
    "max_steps": ("The turn stopped at the step cap; the work so far is kept.", "warning"),
    "loop_guard": ("The turn was stopped by a loop guard.", "warning"),
    "budget": ("The turn stopped at the spending cap; the work so far is kept.", "warning"),
    "error": ("The turn ended with an error.", "error"),
}
UNFINISHED = "This turn did not finish: zizou was stopped while it ran."

__all__ = ["ENDINGS", "INTERRUPTED", "UNFINISHED"]
