"""`zizou -p`: one turn through the same loop as the TUI, printed for scripts and CI.

Whatever the policy would ask about is denied (the model is told why in the tool result)
unless `--allow` or `--yes` approved it up front.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from zizou.core.events import AgentError, Event, Retrying, ToolCallFinished, TurnFinished
from zizou.core.protocols import Approval, PermissionRequest
from zizou.runtime import Runtime
from zizou.tools.run_bash import strip_terminal_controls as _plain

OutputFormat = Literal["text", "json", "stream-json"]
EXIT_CODES = {"done": 0, "error": 1, "loop_guard": 1, "max_steps": 3, "cancelled": 130}
SUBTYPES = {"done": "success", "max_steps": "max_steps"}


class HeadlessApprover:
    """Nobody is there to ask: deny, and tell the model how a user could approve it."""

    async def ask(self, request: PermissionRequest) -> Approval:
        if request.protected:
            how = "protected paths are never written without a person approving it"
        elif request.tool == "run_bash" and request.suggested_rule:
            rule = request.suggested_rule
            how = f"the user can re-run with --allow 'run_bash:{rule}' or --yes"
        elif request.tool == "run_bash":
            how = f"no rule can approve it ({request.reason}); the user can re-run with --yes"
        else:
            how = f"the user can re-run with --allow {request.tool} or --yes"
        return Approval("deny", f"zizou is running headless and nothing approved this; {how}")


@dataclass
class HeadlessRun:
    runtime: Runtime
    output_format: OutputFormat = "text"
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)

    async def run(self, prompt: str) -> int:
        started = time.monotonic()
        finished: TurnFinished | None = None
        try:
            async for event in self.runtime.agent.run_turn(prompt):
                self._render(event)
                if isinstance(event, TurnFinished):
                    finished = event
        except asyncio.CancelledError:
            finished = TurnFinished("cancelled", "", 0, message="interrupted")
        assert finished is not None
        self._finish(finished, time.monotonic() - started)
        return EXIT_CODES[finished.reason]

    def _render(self, event: Event) -> None:
        if isinstance(event, ToolCallFinished):
            self.tool_calls.append({"name": event.name, "ok": event.ok})
        if self.output_format == "stream-json":
            self._json(event.to_dict())
        elif isinstance(event, ToolCallFinished) and self.err.isatty():
            mark = "✓" if event.ok else "✗"
            print(_plain(f"■ {event.name} · {event.duration_s:.2f}s {mark}"), file=self.err)
        elif isinstance(event, AgentError) and self.output_format == "text":
            print(_plain(f"zizou: {event.message}"), file=self.err)
        elif isinstance(event, Retrying) and self.output_format == "text":
            print(_plain(f"zizou: {event.reason}"), file=self.err)

    def _finish(self, finished: TurnFinished, duration_s: float) -> None:
        if self.output_format == "text":
            if finished.text:  # the model's text reaches a terminal: no escape sequences
                print(_plain(finished.text), file=self.out)
            if finished.message and finished.reason != "error":
                print(_plain(f"zizou: {finished.message}"), file=self.err)
            return
        result = {
            "type": "result",
            "subtype": SUBTYPES.get(finished.reason, "error"),
            "stop_reason": finished.reason,
            "session_id": self.runtime.session_id,
            "result": finished.text if finished.reason == "done" else finished.message,
            "steps": finished.steps,
            "usage": {
                "input_tokens": finished.usage.input_tokens,
                "output_tokens": finished.usage.output_tokens,
            },
            "cost_usd": finished.usage.cost_usd,
            "duration_ms": round(duration_s * 1000),
            "tool_calls": self.tool_calls,
        }
        self._json(result)

    def _json(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, ensure_ascii=False) + "\n")
        self.out.flush()
