"""Watching a command for undo, from the loop's side: the recorder's snapshot taken in a thread
before the command starts, and its `finished` once the command ended, in a thread too, or right
away when the turn is being cancelled (a cancelled task cannot wait for a thread). A recorder
that fails is logged and said; it never stops the command."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from zizou.contracts.protocols import ChangeRecorder, CommandWatch, CommandWatching

if TYPE_CHECKING:
    from zizou.sandbox.layer_apply import Applied

log = logging.getLogger(__name__)


async def start_watch(
    recorder: ChangeRecorder | None, command: str, watched: CommandWatching = "snapshot"
) -> CommandWatch | None:
    """The project's files kept before `command` runs (as `watched` says); None when commands
    are not watched or the recorder failed (logged)."""
    if recorder is None:
        return None
    try:
        return await asyncio.to_thread(recorder.before_command, command, watched)
    except Exception:
        log.exception("keeping the files before %r failed", command[:200])
        return None


async def end_watch(watch: CommandWatch | None, applied: Applied | None = None) -> str | None:
    """Keep what the command changed (`applied`: what its layer said); why it could not be
    kept, if it could not."""
    if watch is None:
        return None
    return await asyncio.to_thread(end_watch_now, watch, applied)


def end_watch_now(watch: CommandWatch | None, applied: Applied | None = None) -> str | None:
    """`end_watch` in this thread: for a command whose turn is being cancelled."""
    if watch is None:
        return None
    try:
        return watch.finished(applied)
    except Exception as exc:
        log.exception("keeping what a command changed failed")
        return f"what it changed is not kept for undo: {type(exc).__name__}: {exc}"


__all__ = ["end_watch", "end_watch_now", "start_watch"]
