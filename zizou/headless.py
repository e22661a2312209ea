"""`zizou -p`: one turn through the same loop as the TUI, printed for scripts and CI.

Whatever the policy would ask about is denied (the model is told why in the tool result)
unless `--allow` or `--yes` approved it up front. With `--output-format json` or `stream-json`,
every exit prints one result object last, a usage error before the turn included (`write_error`),
so a script can always parse stdout.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Literal, TextIO

from zizou.core.events import (
    AgentError,
    Event,
    PermissionDecided,
    Retrying,
    ToolCallFinished,
    TurnFinished,
    Usage,
)
from zizou.core.protocols import Approval, PermissionRequest
from zizou.errors import ProviderError, UsageError, ZizouError
from zizou.runtime import Runtime
from zizou.tools.run_bash import strip_terminal_controls as _plain

OutputFormat = Literal["text", "json", "stream-json"]
EXIT_CODES = {"done": 0, "error": 1, "loop_guard": 1, "max_steps": 3, "cancelled": 130}
SUBTYPES = {"done": "success", "max_steps": "max_steps"}
ERROR_KINDS = {"error": "provider", "loop_guard": "runtime", "cancelled": "interrupted"}


def error_kind(exc: BaseException) -> str:
    """The machine-readable `error.kind` of an exception that ended a run: its own `kind`
    (missing_key, unknown_model, unknown_provider), else usage, provider or runtime."""
    kind = getattr(exc, "kind", None)
    if isinstance(kind, str):
        return kind
    if isinstance(exc, UsageError):
        return "usage"
    return "provider" if isinstance(exc, ProviderError) else "runtime"


def result_object(
    finished: TurnFinished,
    session_id: str | None,
    duration_s: float,
    tool_calls: list[dict[str, Any]],
    kind: str | None = None,
) -> dict[str, Any]:
    """The last line of a json or stream-json run; an error result also says `error.kind`."""
    result: dict[str, Any] = {
        "type": "result",
        "subtype": SUBTYPES.get(finished.reason, "error"),
        "stop_reason": finished.reason,
        "session_id": session_id,
        "result": finished.text if finished.reason == "done" else finished.message,
        "steps": finished.steps,
        "usage": {
            "input_tokens": finished.usage.input_tokens,
            "output_tokens": finished.usage.output_tokens,
        },
        "cost_usd": finished.usage.cost_usd,
        "duration_ms": round(duration_s * 1000),
        "tool_calls": tool_calls,
    }
    if result["subtype"] == "error":
        kind = kind or ERROR_KINDS.get(finished.reason, "runtime")
        result["error"] = {"kind": kind, "message": finished.message or ""}
    return result


def write_error(out: TextIO, kind: str, message: str, duration_s: float = 0.0) -> None:
    """The result of a run that ended before its turn began (a usage or configuration error):
    no session, no step, nothing spent."""
    finished = TurnFinished("error", "", 0, Usage(cost_usd=0.0), message)
    _write_json(out, result_object(finished, None, duration_s, [], kind))


def _write_json(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=False) + "\n")
    out.flush()


class HeadlessApprover:
    """Nobody is there to ask: deny, and tell the model how a user could approve it."""

    async def ask(self, request: PermissionRequest) -> Approval:
        if request.protected:
            how = "protected paths are never written without a person approving it"
        elif request.tool == "run_bash" and request.suggested_rules:
            flags = " ".join(f"--allow {_quoted(f'run_bash:{r}')}" for r in request.suggested_rules)
            how = f"the user can re-run with {flags} added, or with --yes"
        elif request.tool == "run_bash":
            how = f"{request.reason}; the user can re-run with --yes"
        else:
            how = f"the user can re-run with --allow {request.tool} or --yes"
        why = f"zizou is running headless and nothing approved this; {how}"
        return Approval("deny", why, by="headless")


def _quoted(text: str) -> str:
    """`text` in single quotes, as a shell reads it back (`'run_bash:rm -rf '"'"'a b'"'"''`)."""
    return "'" + text.replace("'", "'\"'\"'") + "'"


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
        except Exception as exc:  # the turn's own failures end in TurnFinished: this is not one
            return self._crashed(exc, time.monotonic() - started)
        assert finished is not None
        self._finish(finished, time.monotonic() - started)
        return EXIT_CODES[finished.reason]

    def _crashed(self, exc: Exception, duration_s: float) -> int:
        """Say what broke (a traceback for a bug), and still end with the one result."""
        if isinstance(exc, ZizouError):
            print(_plain(f"zizou: {exc}"), file=self.err)
        else:
            traceback.print_exception(exc, file=self.err)
        if self.output_format != "text":
            finished = TurnFinished("error", "", 0, message=str(exc) or type(exc).__name__)
            session_id = self.runtime.session_id
            kind = error_kind(exc)
            self._json(result_object(finished, session_id, duration_s, self.tool_calls, kind))
        return exc.exit_code if isinstance(exc, ZizouError) else 1

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
        elif (
            isinstance(event, PermissionDecided)
            and event.by == "headless"
            and self.output_format == "text"
        ):  # the model reads why it was denied; the person who ran zizou should too
            print(_plain(f"zizou: {event.tool} was not run: {event.reason}"), file=self.err)

    def _finish(self, finished: TurnFinished, duration_s: float) -> None:
        if self.output_format == "text":
            if finished.text:  # the model's text reaches a terminal: no escape sequences
                print(_plain(finished.text), file=self.out)
            if finished.message and finished.reason != "error":
                print(_plain(f"zizou: {finished.message}"), file=self.err)
            return
        session_id = self.runtime.session_id
        self._json(result_object(finished, session_id, duration_s, self.tool_calls))

    def _json(self, obj: dict[str, Any]) -> None:
        _write_json(self.out, obj)
