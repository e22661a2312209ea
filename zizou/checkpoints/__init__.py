"""Checkpoints and undo: the bytes of every file a tool is about to change, and of every file a
command changed (snapshots taken before and after it), kept per user turn, so a turn can be
undone (its files put back, its messages removed), redone, or several turns rewound at once.

The blobs live under `.zizou/checkpoints/` (content-addressed, pruned by age and size at
start-up); which file each turn changed, and every undo and redo, are lines of the session file,
so `zizou -c` and `zizou undo` see what the running session saw. See `undo.Checkpoints` for the
API the front ends use.
"""

from zizou.checkpoints.blobs import CHECKPOINTS_DIR, BlobStore, Pruned
from zizou.checkpoints.history import FileChange
from zizou.checkpoints.plans import (
    Action,
    FileOutcome,
    FilePlan,
    TurnInfo,
    TurnPreview,
    UndoError,
    UndoRefused,
    UndoResult,
    caveats,
)
from zizou.checkpoints.undo import Checkpoints

__all__ = [
    "CHECKPOINTS_DIR",
    "Action",
    "BlobStore",
    "Checkpoints",
    "FileChange",
    "FileOutcome",
    "FilePlan",
    "Pruned",
    "TurnInfo",
    "TurnPreview",
    "UndoError",
    "UndoRefused",
    "UndoResult",
    "caveats",
]
