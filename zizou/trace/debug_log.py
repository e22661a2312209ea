"""`zizou-debug.log`: a complete, redacted audit of the latest user message.

(`zizou-debug.PID.log` when another zizou in the project holds `zizou-debug.log`: `log_claim`.)

The log is a TurnRecorder: the loop tells it when a message begins, hands it each step's exact
request, and shows it every event. The file is rewritten (truncated, mode 0600, opened by fd
from the root: a symlink or a FIFO in its place is refused) at each user message; sections 1-5
are written when the first request is recorded, because only then does the system prompt exist,
and section 6 grows event by event, flushed after every record so a crash leaves a readable log.
Every record passes through the Redactor.

A failure to write (disk full, no permission) never reaches the turn: the log switches itself off
for that message and says why once, in `problem`, for the front end to show.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TextIO

from zizou import confined
from zizou.agent.prompt import CompiledPrompt
from zizou.contracts.events import (
    AnyEvent,
    Nested,
    ReasoningDelta,
    Retrying,
    TextDelta,
    TurnFinished,
)
from zizou.contracts.protocols import ModelRequest
from zizou.errors import PathError
from zizou.paths import debug_log_path
from zizou.redact import Redactor
from zizou.trace import sections as fmt
from zizou.trace.event_records import event_record, text_record, usage_summary
from zizou.trace.log_claim import claim_debug_log

CallParameters = Mapping[str, Any] | Callable[[], Mapping[str, Any]]
FILE_MODE = 0o600
_OPEN_FLAGS = os.O_CREAT | os.O_TRUNC | os.O_WRONLY  # confined adds O_NOFOLLOW, O_NONBLOCK


class PromptRecord(Protocol):
    """Where the layers of the latest rendered system prompt can be read (a PromptBuilder)."""

    @property
    def last(self) -> CompiledPrompt | None: ...


@dataclass
class _Turn:
    history_before: int
    started: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    sections_written: bool = False
    pending: list[str] = field(default_factory=list)  # records made before the first request
    deltas: list[str] = field(default_factory=list)  # the pieces of one run of text or reasoning
    deltas_started: float = 0.0
    deltas_label: str = "TEXT-DELTA"
    last_sent: fmt.Sent | None = None


class DebugLog:
    """Writes `<root>/zizou-debug.log` for each user message."""

    def __init__(
        self,
        root: Path,
        redactor: Redactor,
        *,
        prompt: PromptRecord | None = None,
        call_parameters: CallParameters | None = None,
    ) -> None:
        self.root = root
        self.path = debug_log_path(root)
        self.redactor = redactor
        self.prompt = prompt
        self.call_parameters = call_parameters or {}
        self.problem: str | None = None  # why the log is off for this message, if it is
        self._file: TextIO | None = None
        self._turn = _Turn(0)
        self._lock = threading.RLock()  # log records come from worker threads too
        self._handler = _Records(self)
        self._level: int | None = None  # the zizou logger's level before the log raised it

    # The TurnRecorder protocol.

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.close()
        self.problem = None
        self._turn = _Turn(len(history))
        self._safely(self._open)
        if self._file is not None:
            logger = logging.getLogger("zizou")
            # INFO too while the log is open (which rule an edit matched by, for one): the
            # records go to this log's handler alone, as nothing else handles zizou's.
            self._level = logger.level
            logger.setLevel(logging.INFO)
            logger.addHandler(self._handler)

    def record_request(self, step: int, request: ModelRequest) -> None:
        if self._file is not None:
            self._safely(lambda: self._record_request(step, request))

    def emit(self, event: AnyEvent) -> None:
        if self._file is not None:
            self._safely(lambda: self._record_event(event))

    def record_nested_request(
        self, chain: tuple[str, ...], step: int, request: ModelRequest
    ) -> None:
        """A deck's request (a sub-agent's), among the events of the call that ran it: its
        system prompt, history and tools, for the same audit as the main requests."""
        if self._file is not None:
            record = fmt.nested_request(chain, step, request)
            self._safely(lambda: self._out(self._stamp(record)))

    def record_nested_event(self, chain: tuple[str, ...], event: AnyEvent) -> None:
        """An event of a deck's run, as it happens (so it lands in order with that run's
        requests); the same event reaching the main stream later, as `Nested`, is not
        written again. Text and reasoning as they stream are left out: MODEL-REPLY gives the
        text's size."""
        if self._file is not None and not isinstance(event, TextDelta | ReasoningDelta | Nested):
            record = f"NESTED {' > '.join(chain)} {event_record(event)}"
            self._safely(lambda: self._out(self._stamp(record)))

    def log(self, record: logging.LogRecord) -> None:
        """A record zizou logged while the turn ran: a LOG record, its traceback with it."""
        if self._file is not None:
            self._safely(lambda: self._out(self._stamp(_log_record(record))))

    def close(self) -> None:
        logger = logging.getLogger("zizou")
        logger.removeHandler(self._handler)
        if self._level is not None:
            logger.setLevel(self._level)
            self._level = None
        file, self._file = self._file, None
        if file is not None:
            try:
                file.close()
            except OSError:
                pass  # everything written was flushed already, or the failure was reported

    # Writing.

    def _open(self) -> None:
        self.redactor.refresh()
        self.path = claim_debug_log(self.root, FILE_MODE)
        fd = confined.open_file(self.root, self.path, _OPEN_FLAGS, FILE_MODE)
        try:
            os.fchmod(fd, FILE_MODE)  # the file may have existed with a wider mode
            self._file = os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace")
        except BaseException:
            os.close(fd)
            raise

    def _safely(self, action: Callable[[], None]) -> None:
        try:
            with self._lock:
                action()
        except PathError as exc:  # a symlink, a FIFO, a directory: nothing zizou writes through
            self._fail(f"{self.path} cannot be written safely ({exc})")
        except OSError as exc:
            self._fail(f"could not write {self.path}: {exc.strerror or exc}")
        except Exception as exc:  # a bug in the log must not end the user's turn either
            self._fail(f"the debug log failed ({type(exc).__name__}: {self._quiet(str(exc))})")

    def _quiet(self, text: str) -> str:
        """`text` redacted, or nothing if the redactor is what failed."""
        try:
            return self.redactor.redact(text)[:200]
        except Exception:
            return "details withheld"

    def _fail(self, message: str) -> None:
        if self.problem is None:
            self.problem = f"{message}; the debug log is off for this message"
        self.close()

    def _write(self, text: str) -> None:
        if self._file is None:
            return
        self._file.write(self.redactor.redact(text))
        self._file.flush()

    def _out(self, record: str) -> None:
        if self._turn.sections_written:
            self._write(record)
        else:
            self._turn.pending.append(record)

    def _stamp(self, record: str, at: float | None = None) -> str:
        offset = (time.monotonic() if at is None else at) - self._turn.started
        wall = datetime.fromtimestamp(self._turn.started_wall + offset)
        return f"{wall.strftime('%H:%M:%S.%f')[:-3]} +{offset:.3f}s {record}"

    # Records.

    def _params(self) -> Mapping[str, Any]:
        params = self.call_parameters
        return params() if callable(params) else params

    def _compiled(self, request: ModelRequest) -> CompiledPrompt | None:
        last = self.prompt.last if self.prompt is not None else None
        return last if last is not None and last.text == request.system else None

    def _record_request(self, step: int, request: ModelRequest) -> None:
        turn = self._turn
        compiled = self._compiled(request)
        if not turn.sections_written:
            self._write_sections(request, compiled)
            self._write(self._stamp(fmt.request_summary(step, request) + ", as in 1-5\n"))
        else:
            assert turn.last_sent is not None
            self._write(self._stamp(fmt.later_request(step, request, compiled, turn.last_sent)))
        turn.last_sent = fmt.Sent(request.system, compiled, len(request.messages))

    def _write_sections(self, request: ModelRequest, compiled: CompiledPrompt | None) -> None:
        when = datetime.now().astimezone().isoformat(timespec="seconds")
        params = self._params()
        self._write(fmt.header(when, str(self.root), params, self._turn.history_before, request))
        self._write(fmt.heading(1) + request.system.rstrip() + "\n")
        self._write(fmt.heading(2) + fmt.breakdown(compiled, request))
        self._write(fmt.heading(3) + fmt.history(request.messages))
        self._write(fmt.heading(4) + fmt.tools(request.tools))
        self._write(fmt.heading(5) + fmt.call_parameters(params))
        self._start_events()

    def _start_events(self) -> None:
        self._write(fmt.heading(6))
        self._turn.sections_written = True
        for record in self._turn.pending:
            self._write(record)
        self._turn.pending.clear()

    def _record_event(self, event: AnyEvent) -> None:
        if isinstance(event, Nested):  # written as it happened (record_nested_event)
            return
        turn = self._turn
        if isinstance(event, TextDelta | ReasoningDelta):
            self._gather(event)
            return
        self._flush_text(discarded=isinstance(event, Retrying))
        self._out(self._stamp(event_record(event)))
        if isinstance(event, Retrying) and event.resent_messages is not None:
            before = turn.last_sent.message_count if turn.last_sent is not None else None
            self._out(fmt.resent_history(event.resent_messages, before))
            if turn.last_sent is not None:
                turn.last_sent = replace(turn.last_sent, message_count=len(event.resent_messages))
        if isinstance(event, TurnFinished):
            if not turn.sections_written:
                self._write(fmt.no_request_header(str(self.root), self._params()))
                self._start_events()
            self._write(usage_summary(event))
            self.close()

    def _gather(self, event: TextDelta | ReasoningDelta) -> None:
        """Consecutive pieces of the same kind make one record; text after reasoning (or
        the other way round) starts the next."""
        turn = self._turn
        label = "REASONING-DELTA" if isinstance(event, ReasoningDelta) else "TEXT-DELTA"
        if turn.deltas and turn.deltas_label != label:
            self._flush_text()
        if not turn.deltas:
            turn.deltas_started, turn.deltas_label = time.monotonic(), label
        turn.deltas.append(event.text)

    def _flush_text(self, discarded: bool = False) -> None:
        turn = self._turn
        if turn.deltas:
            took = time.monotonic() - turn.deltas_started
            record = text_record(turn.deltas, took, discarded, turn.deltas_label)
            turn.deltas = []
            self._out(self._stamp(record, at=turn.deltas_started))


class _Records(logging.Handler):
    """Hands the "zizou" logger's records to the debug log of the running turn."""

    def __init__(self, log: DebugLog) -> None:
        super().__init__(logging.INFO)
        self.debug_log = log

    def emit(self, record: logging.LogRecord) -> None:
        self.debug_log.log(record)


def _log_record(record: logging.LogRecord) -> str:
    text = f"LOG {record.levelname} {record.name}: {record.getMessage()}\n"
    if record.exc_info and record.exc_info[1] is not None:
        text += fmt.block("".join(traceback.format_exception(record.exc_info[1])))
    return text


__all__ = ["FILE_MODE", "CallParameters", "DebugLog", "PromptRecord"]
