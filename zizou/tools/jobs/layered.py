"""A command run in its own copy-on-write layer (zizou/sandbox/layer.py): once it ended, however
it ended, its changes are moved into the project and its result says so, carrying what was
applied (for undo) and telling the model and the user of each conflict, where the project's
own version was kept and where the command's version went.

A command moved to the background still runs in its layer: its changes reach the project when
it ends (or when zizou ends it, on exit), and are not undone (the turn that started it has its
result already).
"""

from __future__ import annotations

import logging

from zizou.sandbox.layer import Layer
from zizou.sandbox.layer_apply import Applied, apply_layer

MAX_READ_BEFORE = 64 * 1024 * 1024  # the bytes before of a larger file are not kept for undo
log = logging.getLogger(__name__)


def apply_now(layer: Layer) -> Applied:
    """Move the layer's changes into the project (a failure is named, never raised)."""
    try:
        return apply_layer(layer, MAX_READ_BEFORE)
    except OSError as err:
        log.exception("applying the layer %s failed", layer.directory)
        return Applied(failed=[f"{err.strerror or err}"], left=layer.directory)


def applied_notes(applied: Applied) -> list[str]:
    """The conflicts and failures of applying a layer, a line each."""
    lines: list[str] = []
    for conflict in applied.conflicts:
        if conflict.kept is None:
            lines.append(
                f"conflict: the command deleted {conflict.path}, which was changed outside it "
                "while it ran; that version is kept"
            )
        else:
            lines.append(
                f"conflict: {conflict.path} was changed outside the command while it ran; "
                f"that version is kept, and the command's version is at {conflict.kept}"
            )
    if applied.failed:
        where = f" (kept in {applied.left})" if applied.left else ""
        lines.append(f"not moved into the project{where}: {'; '.join(applied.failed)}")
    return lines


__all__ = ["MAX_READ_BEFORE", "applied_notes", "apply_now"]
