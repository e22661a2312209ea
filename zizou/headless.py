"""`zizou -p`: one turn through the same loop as the TUI, printed for scripts and CI.

Whatever the policy would ask about is denied (the model is told why in the tool result)
unless `--allow` or `--yes` approved it up front. With `--output-format json` or `stream-json`,
every exit prints one result object last, a usage error before the turn included (`write_error`),
so a script can always parse stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import signal
import stat
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Coroutine, Mapping
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, assert_never

from zizou import confined
from zizou.config.options import OutputFormat, RunOptions
from zizou.contracts.events import (
    AgentError,
    AnyEvent,
    BudgetWarning,
    ChecksReported,
    Compacted,
    DeckSuspense,
    HookWarning,
    ModelReplied,
    Nested,
    PermissionDecided,
    PermissionRequested,
    ReasoningDelta,
    Retrying,
    StepFinished,
    StepPlanned,
    StepStarted,
    TextDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolProgress,
    TurnFinished,
    TurnStarted,
    Usage,
)
from zizou.contracts.file_commands import message_for
from zizou.contracts.task_state import merge_patch
from zizou.contracts.workspace import WindowInfo
from zizou.errors import PathError, ProviderError, UsageError, ZizouError
from zizou.hooks.modes import plan_text
from zizou.session.kernel import Session
from zizou.session.unattended import open_unattended, stopped_jobs, watch_servers
from zizou.terminal_text import strip_terminal_controls as _plain

EXIT_CODES = {
    "done": 0,
    "error": 1,
    "loop_guard": 1,
    "max_steps": 3,
    "budget": 4,
    "cancelled": 130,
}
# The `error.kind`s of a run that was misconfigured rather than failed: exit code 2.
USAGE_KINDS = frozenset({"usage", "missing_key", "unknown_model", "unknown_provider"})
SUBTYPES = {"done": "success", "max_steps": "max_steps", "budget": "budget"}
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
    workspace: tuple[WindowInfo, ...] = (),
    state: Mapping[str, Any] | None = None,
    mode: str | None = None,
    permission_mode: str | None = None,
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
            "cache_read_tokens": finished.usage.cache_read_tokens,
            "cache_write_tokens": finished.usage.cache_write_tokens,
        },
        "cost_usd": finished.usage.cost_usd,
        "duration_ms": round(duration_s * 1000),
        "tool_calls": tool_calls,
        "workspace": [window.to_dict() for window in workspace],
    }
    if state is not None:
        result["state"] = dict(state)
    if mode is not None:
        result["mode"] = mode
    if permission_mode is not None:
        result["permission_mode"] = permission_mode
    if result["subtype"] == "error":
        kind = kind or finished.error_kind or ERROR_KINDS.get(finished.reason, "runtime")
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


def run_headless(options: RunOptions) -> int:
    """`zizou -p`: `options.prompt` as one turn, printed as `options.output_format` says; the
    exit code."""
    session = open_unattended(options, _warn)
    try:
        if session.schema_error is not None:  # a run would go on without the state it needs
            raise UsageError(f"{session.schema_error}; fix the file, or remove it")
        for warning in session.warnings:
            _warn(warning)
        watch_servers(session, _warn)
        if options.state_file is not None:
            load_state_file(session, options.state_file)
        prompt, notes = message_for(options.root, options.prompt or "")
        for note in notes:
            _warn(note)
        run = HeadlessRun(session, options.output_format)
        code = asyncio.run(_until_stopped(_inline_then_run(run, options.prompt or "", prompt)))
        if options.state_file is not None:
            save_state_file(session, options.state_file)
        return code
    finally:
        if session.debug_log is not None and session.debug_log.problem:
            _warn(session.debug_log.problem)
        if stopped := session.close():
            _warn(stopped_jobs(stopped))


async def _inline_then_run(run: HeadlessRun, typed: str, prompt: str) -> int:
    """The turn, once the inline `!`command`s of the command file `typed` runs (if any) ran
    through the session's approvals and sandbox, their output in `prompt`."""
    prompt, notes = await run.kernel.with_inline_output(typed, prompt)
    for note in notes:
        _warn(note)
    return await run.run(prompt)


async def _until_stopped(work: Coroutine[Any, Any, int]) -> int:
    """`work`, ended as Ctrl+C ends it when zizou is told to stop (SIGTERM, a closed terminal's
    SIGHUP): the turn ends, then every command's process group, so nothing outlives zizou."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGHUP):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, task.cancel)
    return await work


def load_state_file(session: Session, path: Path) -> None:
    """`--state FILE`: the task state to start from (a missing file: the zero value)."""
    task = session.state.task
    if task is None:
        raise UsageError(f"--state {path}: this session has no task state")
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--state {path}: cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"--state {path}: not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    if isinstance(value, dict):  # fields the file leaves out keep their zero value
        value = merge_patch(task.schema.zero(), value)
    problems = task.restore(value)
    if problems:
        raise UsageError(f"--state {path}: does not fit the schema: {'; '.join(problems[:3])}")
    session.state.reset_task_to(value)


def save_state_file(session: Session, path: Path) -> None:
    """`--state FILE`: the task state as the run left it, written whole or not at all."""
    task = session.state.task
    if task is None:
        return
    data = (json.dumps(task.snapshot(), indent=2) + "\n").encode("utf-8")
    write_whole(path, data, lambda why: _warn(f"--state {path}: {why}"))


def write_whole(path: Path, data: bytes, warn: Callable[[str], None]) -> None:
    """`data` as the file `path`, whole or not at all (its mode kept); `warn` hears why not."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError:
        mode = 0o600
    try:
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        warn(f"the state could not be written back: {exc}")
        return
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:  # created new (O_EXCL), never through a link
            out.write(data)
        temporary.chmod(mode)
        temporary.replace(path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        warn(f"the state could not be written back: {exc}")


def _warn(message: str) -> None:
    print(_plain(f"zizou: {message}"), file=sys.stderr)


@dataclass
class HeadlessRun:
    kernel: Session
    output_format: OutputFormat = "text"
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    # Each call the turn made, in the order the model asked for them (calls that run side by
    # side may finish in another); "ok" is None until it ends.
    tool_calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    forgotten: bool = False  # the session's file was removed: there is nothing to resume

    async def run(self, prompt: str) -> int:
        started = time.monotonic()
        finished: TurnFinished | None = None
        # run_turn is an async generator: closed even when interrupted, so the loop's own
        # ending (TurnFinished, the session file's end record) always runs.
        turn = self.kernel.run_turn(prompt)
        try:
            async with aclosing(turn) as events:
                async for event in events:
                    if isinstance(event, TurnFinished):
                        finished = event = self._told(event)
                    self._render(event)
        except asyncio.CancelledError:  # Ctrl+C: the loop ended the turn ("cancelled") first
            if finished is None:  # it never began: the interruption goes on (cli says so)
                raise
        except Exception as exc:  # the turn's own failures end in TurnFinished: this is not one
            return self._crashed(exc, time.monotonic() - started)
        assert finished is not None
        misconfigured = finished.reason == "error" and finished.error_kind in USAGE_KINDS
        if misconfigured and self._only_the_prompt():
            self._forget_session()
        self._finish(finished, time.monotonic() - started)
        return 2 if misconfigured else EXIT_CODES[finished.reason]

    def _only_the_prompt(self) -> bool:
        """Whether the session holds nothing but this run's prompt (a new session, and the
        model said nothing)."""
        return len(self.kernel.state.conversation.messages) <= 1

    def _forget_session(self) -> None:
        """Remove the new session's file: a run stopped by its own configuration (a model id
        the provider does not have) before anything was said leaves nothing to resume."""
        writer = self.kernel.writer
        if writer is None:
            return
        writer.close()
        self.forgotten = True
        try:
            fd = confined.open_dir_fd(self.kernel.root, writer.path.parent)
        except PathError:
            return
        try:
            os.unlink(writer.path.name, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            self._say(f"the session {writer.path.name} could not be removed: {exc}")
        finally:
            os.close(fd)

    def _told(self, finished: TurnFinished) -> TurnFinished:
        """The turn's end as a person who ran `zizou -p` can act on it: the step cap names
        the flag that raises it and how to go on."""
        if finished.reason != "max_steps":
            return finished
        cap = self.kernel.max_steps
        steps = f"{finished.steps} step{'s' * (finished.steps != 1)}"
        message = (
            f"stopped after {steps} (the step cap, --max-steps {cap}); the work so far is "
            'kept. Continue it with `zizou -c -p "continue"` (add --max-steps N for more steps '
            "per turn), or set max_steps in config.toml."
        )
        return dataclasses.replace(finished, message=message)

    def _crashed(self, exc: Exception, duration_s: float) -> int:
        """Say what broke (a traceback for a bug), and still end with the one result."""
        if isinstance(exc, ZizouError):
            print(_plain(f"zizou: {exc}"), file=self.err)
        else:
            traceback.print_exception(exc, file=self.err)
        if self.output_format != "text":
            finished = TurnFinished("error", "", 0, message=str(exc) or type(exc).__name__)
            kind = error_kind(exc)
            self._json(self._result(finished, duration_s, kind))
        return exc.exit_code if isinstance(exc, ZizouError) else 1

    def _render(self, event: AnyEvent) -> None:
        """stream-json prints every event; text prints the answer at the end (`_finish`) and,
        on stderr, what the person who ran zizou should hear of on the way."""
        if isinstance(event, ToolCallStarted):
            self.tool_calls[event.call_id] = {"name": event.name, "ok": None}
        elif isinstance(event, ToolCallFinished):
            self.tool_calls.setdefault(event.call_id, {"name": event.name})["ok"] = event.ok
        if self.output_format == "stream-json":
            self._json(event.to_dict())
            return
        text = self.output_format == "text"
        match event:
            case TurnStarted():
                pass
            case StepStarted():
                pass
            case TextDelta():
                pass  # the answer is printed whole when the turn ends
            case ReasoningDelta():
                pass  # not the answer: stream-json carries it, text leaves it out
            case ModelReplied():
                pass
            case ToolCallStarted():
                pass
            case ToolProgress():
                pass
            case StepPlanned():
                pass
            case PermissionRequested():
                pass  # headless asks nobody: the decision follows
            case PermissionDecided():
                if text and event.by == "headless":  # the model reads why; the person should too
                    self._say(f"{event.tool} was not run: {event.reason}")
            case ToolCallFinished():
                if self.err.isatty():
                    mark = "✓" if event.ok else "✗"
                    print(_plain(f"■ {event.name} · {event.duration_s:.2f}s {mark}"), file=self.err)
            case StepFinished():
                pass
            case Retrying():
                if text:
                    self._say(event.reason)
            case AgentError():
                if text:
                    self._say(event.message)
            case Compacted():
                size = f"~{event.tokens_before:,} to ~{event.tokens_after:,} tokens"
                self._say(f"the conversation was summarised to fit the context window ({size})")
            case HookWarning():
                self._say(f"{event.hook}: {event.message}")  # stderr, in every output format
            case ChecksReported():
                if text:  # the model reads it and goes on; the person hears of it
                    self._say("the checks found new problems in the changes; the model is told")
            case BudgetWarning():
                if text:
                    self._say(event.message)
            case Nested(event=DeckSuspense() as suspense) | (DeckSuspense() as suspense):
                if text:  # a slow deck's word on what it is doing, as it comes
                    self._say(f"{' > '.join(suspense.chain)}: {suspense.message}")
            case Nested() | DeckSuspense():
                pass  # a deck's run: its trace and the call's result tell it
            case TurnFinished():
                pass  # `_finish` prints the answer or the result
            case _:
                assert_never(event)

    def _say(self, message: str) -> None:
        print(_plain(f"zizou: {message}"), file=self.err)

    def _finish(self, finished: TurnFinished, duration_s: float) -> None:
        hooks = self.kernel.hooks
        for warning in hooks.pending_warnings() if hooks is not None else ():
            self._say(f"{warning.hook}: {warning.message}")
        if self.output_format == "text":
            if finished.text:  # the model's text reaches a terminal: no escape sequences
                print(_plain(finished.text), file=self.out)
            if self.kernel.state.mode == "plan" and (plan := self._plan()):
                print(_plain(f"\nPlan:\n{plan}"), file=self.out)
            if finished.message and finished.reason != "error":
                print(_plain(f"zizou: {finished.message}"), file=self.err)
            return
        self._json(self._result(finished, duration_s))

    def _result(
        self, finished: TurnFinished, duration_s: float, kind: str | None = None
    ) -> dict[str, Any]:
        """The run's result object, with the workspace and the task state as it left them."""
        task = self.kernel.state.task
        decks = self.kernel.decks
        if decks is not None and decks.deck_calls.used:  # what the turn's decks spent counts too
            finished = dataclasses.replace(finished, usage=finished.usage + decks.deck_calls.usage)
        return result_object(
            finished,
            self._saved_as,
            duration_s,
            [call for call in self.tool_calls.values() if call["ok"] is not None],
            kind,
            self.kernel.state.windows,
            task.value if task is not None else None,
            self.kernel.state.mode,
            self.kernel.rules.permission_mode,
        )

    def _plan(self) -> str:
        """The task state's plan (a plan-mode run prints it: nothing was changed to show)."""
        task = self.kernel.state.task
        return plan_text(task.value if task is not None else None)

    @property
    def _saved_as(self) -> str | None:
        """The session to resume this run with; None when it could not be kept (an unusable
        `.zizou`: the warning on stderr says why)."""
        kept = self.kernel.writer is not None and not self.forgotten
        return self.kernel.session_id if kept else None

    def _json(self, obj: dict[str, Any]) -> None:
        _write_json(self.out, obj)
