"""The call runner's side of the checks (`ChangeChecks`): the bytes of each file a write call
changes, given to the checks before and after it, and what they found added to the result.

A check never fails a call: its error is logged and the call's result stands as it is.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable, Sequence

from zizou.confined import PathHandle
from zizou.contracts.protocols import ChangeChecks
from zizou.errors import PathError
from zizou.tools import ToolResult

MAX_CHECKED_BYTES = 2_000_000  # larger files are not read for the checks
log = logging.getLogger(__name__)


async def before_checks(checks: ChangeChecks, files: Sequence[PathHandle]) -> None:
    """Each file as it is before the call changes it."""
    for handle in files:
        data = await asyncio.to_thread(_content, handle)
        await _safely(checks.before_change(handle.rel, data), handle.rel)


async def after_checks(
    checks: ChangeChecks, files: Sequence[PathHandle], result: ToolResult
) -> ToolResult:
    """`result` with what the checks found the change brought (a failed call changed nothing)."""
    if not result.ok:
        return result
    found: list[str] = []
    for handle in files:
        data = await asyncio.to_thread(_content, handle)
        if data is not None:
            said = await _safely(checks.after_change(handle.rel, data), handle.rel)
            found += [said] if said else []
    if not found:
        return result
    return dataclasses.replace(result, output="\n\n".join([result.output, *found]))


async def prepare_checks(checks: ChangeChecks, files: Sequence[PathHandle]) -> None:
    """The model read `files`: the checks may prepare for a change to them. The bytes are read
    now, while the call's handles are open; the checks work on them in a worker thread, without
    holding up the call."""
    loop = asyncio.get_running_loop()
    for handle in files:
        if not checks.wants(handle.rel):
            continue
        data = await asyncio.to_thread(_content, handle)
        if data is not None:
            loop.run_in_executor(None, _logged(checks.seen), handle.rel, data)


def _content(handle: PathHandle) -> bytes | None:
    """The file's bytes for the checks; None when it does not exist or cannot be read."""
    try:
        return handle.read_bytes(MAX_CHECKED_BYTES)
    except (OSError, PathError):
        return None


async def _safely(checking: Awaitable[str | None], rel: str) -> str | None:
    try:
        return await checking
    except Exception:
        log.exception("the checks failed on %s", rel)
        return None


def _logged(work: Callable[[str, bytes], None]) -> Callable[[str, bytes], None]:
    def run(rel: str, data: bytes) -> None:
        try:
            work(rel, data)
        except Exception:
            log.exception("the checks could not prepare %s", rel)

    return run


__all__ = ["MAX_CHECKED_BYTES", "after_checks", "before_checks", "prepare_checks"]
