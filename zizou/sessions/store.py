"""Sessions that survive a crash: one append-only JSONL file per session.

Every message is written, flushed and fsynced as it joins the conversation, so the user's
message is on disk before the request goes out and a `kill -9` loses at most the reply in
flight. Loading skips a torn last line (and says so) instead of failing. Files are opened by fd
without following symlinks (`zizou.confined`), so a symlinked `.zizou` is never written through.

A conversation shortened to fit the context window is recorded as one `compacted` line holding
the shortened messages; loading replays it, so `zizou -c` goes on from the shortened history. The
lines before it are kept: until that line is whole on disk, the full history is what loads.
An `undone` line cuts the conversation before the turn it names and a `redone` line puts the
turn's messages back (zizou/checkpoints/ writes both, and replays the files they name).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any, assert_never, get_args

from pydantic import TypeAdapter, ValidationError

from zizou import confined
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
)
from zizou.contracts.messages import Message, UserMessage, from_wire, stored, to_wire
from zizou.contracts.protocols import ModelRequest
from zizou.contracts.state import (
    StateEvent,
)
from zizou.contracts.workspace import Window
from zizou.errors import PathError, UsageError
from zizou.paths import (
    PROJECT_DIR_NAME,
    UnsafeProjectDir,
    project_dir,
    read_project_file,
    write_project_file,
)
from zizou.sessions.hold import hold
from zizou.sessions.records import (
    FORMAT_VERSION,
    CheckpointLine,
    CheckpointRecord,
    CommandRecord,
    CompactedRecord,
    MessageRecord,
    MetaRecord,
    ModeRecord,
    Record,
    RedoneRecord,
    StateRecord,
    TurnRecord,
    UndoneRecord,
)
from zizou.sessions.state_lines import StateLines, state_record
from zizou.sessions.turns import replayed_for_undo, users_asked

_RECORD: TypeAdapter[Record] = TypeAdapter(Record)
RECORD_START = b'{"kind":"'  # how every line starts: `kind` is each record's first field
RECORD_KINDS = frozenset(
    str(model.model_fields["kind"].default) for model in get_args(Record)
)  # the kinds this version reads; a newer one's others are skipped with a warning
SESSIONS_DIR = f"{PROJECT_DIR_NAME}/sessions"
INFO_FILE = "info.json"
MAX_SESSION_BYTES = 256_000_000
MAX_INFO_BYTES = 65_536


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


@dataclass
class LoadedSession:
    meta: MetaRecord
    messages: list[Message]
    turns: int
    warnings: list[str] = field(default_factory=list)
    windows: tuple[Window, ...] = ()  # the workspace as the session left it
    state: tuple[StateRecord, ...] = ()  # the task state's changes, in order (replayed on load)
    sticky: tuple[str, ...] = ()  # the sticky instructions it had loaded
    mode: str | None = None  # the mode it was last in
    hook_state: dict[str, dict[str, Any]] = field(default_factory=dict)  # hook -> key -> value
    checkpoints: tuple[CheckpointLine, ...] = ()  # what undo replays (zizou/checkpoints/)
    state_lines: StateLines = field(default_factory=StateLines)  # with the turns they are of
    opening: str = ""  # the user's first message, when a compaction's summary replaced it

    def wire(self) -> list[dict[str, Any]]:
        """The messages as the provider is sent them."""
        return [to_wire(message) for message in self.messages]


@dataclass(frozen=True)
class SessionSummary:
    id: str
    created: str
    first_prompt: str
    turns: int


class SessionWriter:
    """Appends records to one session file; also a TurnRecorder for turn start/finish lines and
    for the shortening of the conversation after a context overflow (a `compacted` line)."""

    message_count = 0  # the messages of the conversation, as this file replays it

    def __init__(
        self,
        path: Path,
        redact: Callable[[str], str] | None = None,
        *,
        root: Path | None = None,
        header: MetaRecord | None = None,
        on_create: Callable[[], None] | None = None,
    ) -> None:
        """Append to `path`, opened by fd from `root` (default: its directory) without following
        symlinks. A new session (`header`) gets its file, header first, and `on_create` runs,
        only with its first message: one nothing was said in leaves no file behind."""
        self.path = path
        self.redact = redact
        self._root = root or path.parent
        self._waiting: list[Record] = [header] if header else []
        self._on_create = on_create
        self._lock = threading.Lock()
        self._file: IO[bytes] | None = None if header else self._open()

    def _open(self) -> IO[bytes]:
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
        fd = confined.open_file(self._root, self.path, flags, 0o600, parents=True)
        try:
            os.fchmod(fd, 0o600)
            hold(fd, self.path)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "ab")

    def write(self, record: Record) -> None:
        with self._lock:  # a tool's worker thread may record the workspace meanwhile
            self._write(record)

    def write_many(self, records: Sequence[Record]) -> None:
        """Append `records` together, synced once (a command's thousands of changed files)."""
        with self._lock:
            for record in records[:-1]:
                self._write(record, sync=False)
            if records:
                self._write(records[-1])

    def _write(self, record: Record, sync: bool = True) -> None:
        if self._file is None:
            if not isinstance(record, MessageRecord):
                self._waiting.append(record)
                return
            self._file = self._open()
            for early in self._waiting:
                self._put(early)
            if self._on_create is not None:
                self._on_create()
        self._put(record, sync)

    def _put(self, record: Record, sync: bool = True) -> None:
        assert self._file is not None
        text = record.model_dump_json()
        if self.redact is not None:
            text = self.redact(text)
        self._file.write(text.encode("utf-8") + b"\n")
        if sync:
            self._file.flush()
            os.fsync(self._file.fileno())

    def append_message(self, message: Message) -> None:
        self.write(MessageRecord(message=stored(message)))
        self.message_count += 1

    def begin_turn(self, user_text: str, history: list[dict[str, Any]]) -> None:
        self.message_count = len(history)
        self.write(TurnRecord(event="started", ts=_now()))

    def record_request(self, step: int, request: ModelRequest) -> None:
        return None

    def emit(self, event: AnyEvent) -> None:
        """The session keeps messages (appended as the conversation grows), how each turn
        ended, and a shortened history; the rest of a turn's events are the debug log's."""
        match event:
            case TurnFinished(reason=reason, usage=used):
                usage = {
                    "input_tokens": used.input_tokens,
                    "output_tokens": used.output_tokens,
                    "cache_read_tokens": used.cache_read_tokens,
                    "cache_write_tokens": used.cache_write_tokens,
                }
                self.write(TurnRecord(event="finished", ts=_now(), reason=reason, usage=usage))
            case Retrying(resent_messages=resent, resent_records=records):
                if records is not None:  # typed: each tool result keeps its outcome
                    self.record_compaction([stored(r) for r in records])
                elif resent is not None:
                    self.record_compaction(list(resent))
            case Compacted(messages=messages):  # the summary is the conversation from here
                self.record_compaction([dict(message) for message in messages])
            case (
                TurnStarted()
                | StepStarted()
                | TextDelta()
                | ReasoningDelta()
                | ModelReplied()
                | ToolCallStarted()
                | ToolProgress()
                | StepPlanned()
                | PermissionRequested()
                | PermissionDecided()
                | ToolCallFinished()
                | StepFinished()
                | AgentError()
                | HookWarning()
                | ChecksReported()
                | BudgetWarning()
                | Nested()
                | DeckSuspense()
            ):
                pass  # a deck's run is the trace's: the session keeps the call's result
            case _:
                assert_never(event)

    def record_state(self, event: StateEvent) -> None:
        """A change to the session's state worth keeping: the open windows, the task state
        (the patch, or the whole value), the sticky instructions, the mode, a hook's value."""
        self.write(state_record(event))

    def record_compaction(self, messages: list[dict[str, Any]]) -> None:
        """The conversation is now `messages`, shortened to fit the context window."""
        dropped = max(0, self.message_count - len(messages))
        self.write(CompactedRecord(ts=_now(), dropped=dropped, messages=messages))
        self.message_count = len(messages)

    def record_undo(self, record: UndoneRecord | RedoneRecord, messages: int) -> None:
        """A turn was undone or done again: the conversation now has `messages` messages."""
        self.write(record)
        self.message_count = messages

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class SessionStore:
    """The sessions of one project, and which one is active (`.zizou/info.json`).

    Everything is read and written by fd without following symlinks: a `.zizou` or
    `.zizou/sessions` the repository ships as a symlink is refused (UnsafeProjectDir), and a
    session that cannot be read is left out of the list.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.dir = root / SESSIONS_DIR
        self._parsed: dict[str, tuple[bytes, LoadedSession]] = {}  # the last parse of each

    def path(self, session_id: str) -> Path:
        return self.dir / f"{session_id}.jsonl"

    def create(
        self, session_id: str, model: str | None, redact: Callable[[str], str] | None = None
    ) -> SessionWriter:
        """A new session. Its file appears, and it becomes the active one, with its first
        message: a run that ends before anything was said leaves nothing for `-c` to resume."""
        project_dir(self.root)
        try:
            confined.make_dirs(self.root, SESSIONS_DIR)
        except PathError as exc:
            raise UnsafeProjectDir(f"cannot write session {session_id}: {exc}") from exc
        header = MetaRecord(id=session_id, created=_now(), model=model)
        activate = partial(self.set_active, session_id)
        return SessionWriter(
            self.path(session_id), redact, root=self.root, header=header, on_create=activate
        )

    def reopen(self, session_id: str, redact: Callable[[str], str] | None = None) -> SessionWriter:
        self.set_active(session_id)
        return self.writer(session_id, redact)

    def writer(self, session_id: str, redact: Callable[[str], str] | None = None) -> SessionWriter:
        """A writer appending to the session's file, which stays as active as it was."""
        try:
            return SessionWriter(self.path(session_id), redact, root=self.root)
        except PathError as exc:
            raise UnsafeProjectDir(f"cannot write session {session_id}: {exc}") from exc

    def load(self, session_id: str) -> LoadedSession:
        """The session as its file holds it now (parsed once for the same bytes: `-c` checks
        the active session and then opens it)."""
        try:
            raw = self._read(session_id)
        except PathError as exc:
            raise UsageError(f"cannot read session {session_id}: {exc}") from exc
        known = self._parsed.get(session_id)
        if known is not None and known[0] == raw:
            return known[1]
        loaded = _parse(session_id, raw)
        self._parsed[session_id] = (raw, loaded)
        return loaded

    def records(self, session_id: str) -> list[Record]:
        """Every record of the session's file, in order (lines that cannot be read are left
        out: loading the session says so): what a resumed view replays."""
        try:
            raw = self._read(session_id)
        except PathError as exc:
            raise UsageError(f"cannot read session {session_id}: {exc}") from exc
        return _records(session_id, raw)[0]

    def _read(self, session_id: str) -> bytes:
        if not _plain_id(session_id):
            raise PathError(f"{session_id!r} is not a session id")
        return confined.read_bytes(self.root, self.path(session_id), MAX_SESSION_BYTES)

    def set_active(self, session_id: str) -> None:
        data = json.dumps({"active_session": session_id}) + "\n"
        write_project_file(self.root, INFO_FILE, data.encode("utf-8"))

    def marked_active(self) -> str | None:
        """The session `.zizou/info.json` names as active, if its file is here, even when
        nothing is left in it (every turn undone): what undo acts on."""
        try:
            data = json.loads(read_project_file(self.root, INFO_FILE, MAX_INFO_BYTES) or b"{}")
        except (OSError, PathError, ValueError):
            data = {}
        active = data.get("active_session") if isinstance(data, dict) else None
        return active if isinstance(active, str) and active in self._ids() else None

    def active_id(self) -> str | None:
        """The session `-c` continues: the active one, or the newest when that one is empty."""
        active = self.marked_active()
        if active is not None:
            with suppress(UsageError):  # an empty session is never resumed
                if self.load(active).messages:
                    return active
        newest = self.list()
        return newest[0].id if newest else None

    def _ids(self) -> list[str]:
        """The ids of the session files, sorted; none when the directory is missing or unsafe."""
        try:
            listed = confined.scandir(self.root, self.dir)
        except PathError:
            return []
        return sorted(
            entry.name.removesuffix(".jsonl")
            for entry in listed
            if entry.is_file and entry.name.endswith(".jsonl") and _plain_id(entry.name)
        )

    def resolve(self, prefix: str) -> str:
        ids = self._ids()
        if prefix in ids:
            return prefix
        matches = [i for i in ids if i.startswith(prefix)]
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise UsageError(f"no session {prefix!r} here: `zizou sessions list` shows them")
        raise UsageError(f"{prefix!r} matches {len(matches)} sessions: give more of the id")

    def list(self) -> list[SessionSummary]:
        """Newest first."""
        summaries = []
        for session_id in self._ids():
            try:
                loaded = _parse(session_id, self._read(session_id))
            except (PathError, UsageError):
                continue
            if not loaded.messages:  # left by a run that ended before anything was said
                continue
            first = loaded.opening or next(
                (m.content for m in loaded.messages if isinstance(m, UserMessage) and m.from_user),
                "",
            )
            summaries.append(
                SessionSummary(session_id, loaded.meta.created, str(first), loaded.turns)
            )
        return sorted(summaries, key=lambda s: (s.created, s.id), reverse=True)


def _first_words(messages: list[dict[str, Any]]) -> str:
    """The first message the user wrote among `messages` (as stored), or ""."""
    for message in messages:
        if message.get("role") == "user" and not message.get("checks"):
            content = message.get("content")
            return content if isinstance(content, str) else ""
    return ""


def _plain_id(session_id: str) -> bool:
    return bool(session_id) and "/" not in session_id and not session_id.startswith(".")


def _records(session_id: str, raw: bytes) -> tuple[list[Record], list[str]]:
    """The records of a session file in order, and warnings for the lines that were skipped."""
    lines = raw.split(b"\n")
    records: list[Record] = []
    warnings: list[str] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        record, torn = _read_line(line)
        if torn:
            what = f"the torn start of line {number} (an interrupted write)"
            warnings.append(f"session {session_id}: skipped {what}; the record after it was read")
        if record is None:
            kind = _unknown_kind(line)
            if kind is not None:
                warnings.append(
                    f"session {session_id}: skipped line {number}, a {kind!r} record this "
                    "version of zizou does not know"
                )
                continue
            last = number == len(lines) or (number == len(lines) - 1 and not lines[-1])
            what = "a torn last line (an interrupted write)" if last else f"line {number}"
            warnings.append(f"session {session_id}: skipped {what} that could not be read")
            continue
        records.append(record)
    return records, warnings


def _parse(session_id: str, raw: bytes) -> LoadedSession:
    records, warnings = _records(session_id, raw)
    meta: MetaRecord | None = None
    messages: list[dict[str, Any]] = []
    state_lines = StateLines()  # the state as undo left the conversation (sessions/state_lines)
    mode: str | None = None
    checkpoints: list[CheckpointLine] = []
    turns = asked = 0  # asked: the user messages of the conversation so far
    opening = ""
    for record in records:
        if isinstance(record, MetaRecord):
            meta = record
        elif isinstance(record, MessageRecord | CompactedRecord | UndoneRecord | RedoneRecord):
            if isinstance(record, CompactedRecord) and not opening:
                opening = _first_words(messages)
            line = replayed_for_undo(messages, record)
            asked = users_asked(messages)[0]
            if line is not None:
                checkpoints.append(line)
                state_lines.follow(line, asked)
        elif isinstance(record, CheckpointRecord | CommandRecord):
            # Its turn is the one running where the line stands: a line that names another
            # (planted, or after a skipped message) would mix up what undo restores.
            if record.turn == asked - 1:
                checkpoints.append(record)
            else:
                what = record.path if isinstance(record, CheckpointRecord) else "a command"
                warnings.append(
                    f"session {session_id}: skipped a checkpoint of {what} that names "
                    f"turn {record.turn} where turn {asked - 1} runs"
                )
        elif isinstance(record, ModeRecord):
            mode = record.mode
        elif isinstance(record, TurnRecord):
            if record.event == "started":
                turns += 1
                checkpoints.append(record)
                state_lines.new_turn()
        else:
            state_lines.add(asked, record)
    if meta is None:
        raise UsageError(f"session {session_id} has no header line; it cannot be resumed")
    if meta.v > FORMAT_VERSION:
        raise UsageError(
            f"session {session_id} was written by a newer zizou (session format {meta.v}; this "
            f"one reads up to {FORMAT_VERSION}): upgrade zizou to resume it"
        )
    typed: list[Message] = []
    for message in messages:
        try:
            typed.append(from_wire(message))
        except ValidationError:
            warnings.append(f"session {session_id}: skipped a message that could not be read")
    now = state_lines.in_force(session_id)
    return LoadedSession(
        meta,
        typed,
        turns,
        warnings + now.warnings,
        now.windows,
        now.task,
        now.sticky,
        mode,
        now.hook_state,
        tuple(checkpoints),
        state_lines,
        opening,
    )


def _unknown_kind(line: bytes) -> str | None:
    """The kind of a whole record whose kind this version does not read, else None."""
    try:
        data = json.loads(line)
    except ValueError:
        return None
    kind = data.get("kind") if isinstance(data, dict) else None
    return kind if isinstance(kind, str) and kind not in RECORD_KINDS else None


def _read_line(line: bytes) -> tuple[Record | None, bool]:
    """The record on a line, and whether a torn write precedes it. A write cut short by a crash
    ends without a newline, so the next run's first record is appended to the same line; every
    record's JSON starts with its `kind`, so that record is still found and read."""
    try:
        return _RECORD.validate_json(line), False
    except ValidationError:
        pass
    start = line.rfind(RECORD_START)
    if start > 0:
        try:
            return _RECORD.validate_json(line[start:]), True
        except ValidationError:
            pass
    return None, False
