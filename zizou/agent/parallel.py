"""Running a step's read-only tool calls side by side.

A model that asks for several reads in one step (three files, a grep, two read-only decks)
then waits for the slowest of them rather than for their sum. Only consecutive calls that read
run together, at most MAX_SIDE_BY_SIDE at a time; any other call runs alone, once the calls
before it finished (the loop sees to that). Each call's events come as they happen, tagged by
its call id, and its ToolCallFinished as soon as it ends; its result enters the conversation in
the order the model sent the calls, whatever order they finish in, so the history reads as if
they had run one after the other.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, Callable, Iterable, Sequence
from contextlib import aclosing
from dataclasses import dataclass

from zizou.agent.calls import ParsedCall
from zizou.contracts.events import AnyEvent, ToolCallFinished
from zizou.contracts.messages import ToolMessage

MAX_SIDE_BY_SIDE = 4
CUT_SHORT = "not finished: the turn was stopped while it ran"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class CallDone:
    """How a call ended: the result the conversation takes, and the event that tells it."""

    message: ToolMessage
    event: ToolCallFinished


CallItems = Callable[[ParsedCall], AsyncGenerator[AnyEvent | CallDone, None]]


def runs_alongside(parsed: ParsedCall) -> bool:
    """Whether the call may run beside others: it was read, and its tool only reads and
    changes nothing of the session (`Tool.side_by_side`)."""
    tool = parsed.tool
    return parsed.problem is None and tool is not None and tool.side_by_side


class _Ended:
    """A call's task is over (its CallDone, if any, came before)."""


_ENDED = _Ended()
Item = AnyEvent | CallDone | _Ended | Exception


async def side_by_side(
    calls: Sequence[ParsedCall],
    items: CallItems,
    record: Callable[[ToolMessage], None],
    limit: int = MAX_SIDE_BY_SIDE,
) -> AsyncGenerator[AnyEvent, None]:
    """Run `calls` concurrently, `limit` at a time, started in order: yields each call's events
    (`items(call)`) as they come, and `record`s the results in call order. Stopped (cancelled,
    closed, or a call failed in zizou itself), every running call is cancelled and awaited, and
    the results that came are recorded in order, a call cut short answered as such; the calls
    that never started are left unanswered, for the loop to close."""
    queue: asyncio.Queue[tuple[int, Item]] = asyncio.Queue()
    running: dict[int, asyncio.Task[None]] = {}
    results: dict[int, ToolMessage] = {}
    recorded = 0  # the calls whose results are in the conversation
    started = 0

    async def pump(index: int) -> None:
        try:
            async with aclosing(items(calls[index])) as produced:
                async for item in produced:
                    queue.put_nowait((index, item))
        except Exception as exc:  # a bug: the step stops, as it would with one call
            queue.put_nowait((index, exc))
        queue.put_nowait((index, _ENDED))

    def start() -> None:
        nonlocal started
        running[started] = asyncio.create_task(pump(started))
        started += 1

    try:
        while started < min(limit, len(calls)):
            start()
        while running:
            index, item = await queue.get()
            if isinstance(item, _Ended):
                del running[index]
                if started < len(calls):
                    start()
            elif isinstance(item, Exception):
                raise item
            elif isinstance(item, CallDone):
                results[index] = item.message
                while recorded in results:
                    record(results[recorded])
                    recorded += 1
                yield item.event
            else:
                yield item
    finally:
        await _cancel(running.values())
        _answer_started(calls, results, recorded, started, record)


async def _cancel(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel the calls still running, and wait until each has cleaned up."""
    pending = list(tasks)
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending)


def _answer_started(
    calls: Sequence[ParsedCall],
    results: dict[int, ToolMessage],
    recorded: int,
    started: int,
    record: Callable[[ToolMessage], None],
) -> None:
    """After a stop: the results of the calls that started, in order, each cut short said so."""
    try:
        for index in range(recorded, started):
            call = calls[index].call
            cut = ToolMessage(tool_call_id=call.id, content=CUT_SHORT, ok=False, name=call.name)
            record(results.get(index, cut))
    except Exception:  # the session file cannot take it (a full disk): the stop goes on
        log.exception("the results of a stopped step could not be recorded")


__all__ = ["MAX_SIDE_BY_SIDE", "CallDone", "CallItems", "runs_alongside", "side_by_side"]
