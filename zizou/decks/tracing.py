"""Where a session's deck runs are traced: one trace per run, shared by the nested actions of
that run (`.zizou/traces/<runId>.jsonl`, no transcript text), streamed to a sink as it happens
(`zizou run --output-format stream-json`), and every request and event in the debug log."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zizou.decks.trace import Trace, prune_traces

if TYPE_CHECKING:
    from zizou.decks.child import NestedLog


@dataclass
class DeckTracing:
    root: Path
    sink: Callable[[dict[str, Any]], None] | None = None  # trace events as they happen
    redact: Callable[[str], str] | None = None
    persist: bool = True
    debug_log: NestedLog | None = None  # the requests and events of every run, as they happen
    open: dict[str, Trace] = field(default_factory=dict)  # the runs going on, by id
    problem: str | None = None  # why a trace could not be written, the latest
    pruned: bool = False

    async def trace_for(self, run_id: str) -> tuple[Trace, bool]:
        """The trace of the run `run_id`, and whether it was opened here (by the run's outermost
        action, which closes it). The oldest traces beyond the last 200 go, once a session."""
        trace = self.open.get(run_id)
        if trace is not None:
            return trace, False
        if not self.pruned:
            self.pruned = True
            await asyncio.to_thread(prune_traces, self.root)
        trace = Trace(self.root, run_id, sink=self.sink, redact=self.redact, persist=self.persist)
        self.open[run_id] = trace
        return trace, True

    def closed(self, trace: Trace) -> None:
        """The run `trace` records has ended."""
        self.open.pop(trace.run_id, None)
        trace.close()
        self.problem = trace.problem or self.problem


__all__ = ["DeckTracing"]
