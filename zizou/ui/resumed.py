"""A resumed conversation (`-c` / `-r`, `/sessions`), shown as it went, from the session file.

The file's records are read in order: the user's messages, the answers, a row per tool call
with its result (read as the live view reads it, `zizou.ui.outcome`), and where a turn ended
early, the notice the live view showed (an interrupted turn, or one that never ended because the
app was stopped). The turn records' usage gives back the running totals, so `/cost` and the
sidebar say what they said before; the turn count is the one `zizou sessions list` shows.
Durations and diffs are not in the file, so resumed rows show neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

from zizou import confined
from zizou.core.events import Usage
from zizou.errors import PathError
from zizou.sessions import SessionStore
from zizou.sessions.records import CompactedRecord, MessageRecord, Record, TurnRecord
from zizou.sessions.store import MAX_SESSION_BYTES
from zizou.sessions.store import replay as replay_line
from zizou.ui.outcome import outcome_of
from zizou.ui.session import UiSession
from zizou.ui.shell import SHARED, read_note, shell_row
from zizou.ui.turns import INTERRUPTED
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.messages import NoticeKind

_RECORD: TypeAdapter[Record] = TypeAdapter(Record)
ENDINGS: dict[
    str, tuple[str, NoticeKind]
] = {  # how a turn that ended early is told, when the file does not keep its message
    "cancelled": (INTERRUPTED, "warning"),
    "max_steps": ("The turn stopped at the step cap; the work so far is kept.", "warning"),
    "loop_guard": ("The turn was stopped by a loop guard.", "warning"),
    "error": ("The turn ended with an error.", "error"),
}
UNFINISHED = "This turn did not finish: zizou was stopped while it ran."


@dataclass
class Replayed:
    totals: Usage
    turns: int = 0
    last_turn: Usage | None = None


def session_records(session: UiSession) -> list[Record]:
    """The records of the session file, when they hold the conversation the session has; else
    (a session that is not saved) its messages alone."""
    runtime = session.runtime
    messages = runtime.agent.conversation.messages
    path = SessionStore(session.root).path(runtime.session_id)
    try:
        raw = confined.read_bytes(session.root, path, MAX_SESSION_BYTES)
    except (PathError, OSError):
        raw = b""
    records: list[Record] = []
    for line in raw.split(b"\n"):
        try:
            records.append(_RECORD.validate_json(line))
        except ValidationError:
            continue  # blank, torn or unknown: loading the session warned about it already
    loaded: list[dict[str, Any]] = []  # the conversation as loading the file rebuilds it
    for record in records:
        if isinstance(record, MessageRecord | CompactedRecord):
            replay_line(loaded, record)
    if loaded != messages:
        return [MessageRecord(message=m) for m in messages]
    return records  # shown whole: a history shortened for the model is still what was said


async def show_resumed(chat: ChatView, session: UiSession) -> None:
    """Show the session's conversation and take back its totals."""
    replayed = await replay(chat, session_records(session))
    session.restore(replayed.totals, replayed.turns, replayed.last_turn)


async def replay(chat: ChatView, records: list[Record]) -> Replayed:
    results = {
        r.message.get("tool_call_id"): str(r.message.get("content") or "")
        for r in records
        if isinstance(r, MessageRecord) and r.message.get("role") == "tool"
    }
    done = Replayed(Usage())
    open_turn = False
    for record in records:
        if isinstance(record, MessageRecord):
            await _message(chat, record.message, results)
        elif isinstance(record, TurnRecord) and record.event == "started":
            if open_turn:
                await chat.add_notice(UNFINISHED, "warning")
            open_turn, done.turns = True, done.turns + 1
        elif isinstance(record, TurnRecord):
            open_turn = False
            usage = Usage(
                _count(record.usage, "input_tokens"), _count(record.usage, "output_tokens")
            )
            done.totals, done.last_turn = done.totals + usage, usage
            if record.reason in ENDINGS:
                await chat.add_notice(*ENDINGS[record.reason])
    if open_turn:
        await chat.add_notice(UNFINISHED, "warning")
    return done


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


async def _message(chat: ChatView, message: dict[str, Any], results: dict[Any, str]) -> None:
    role, content = message.get("role"), str(message.get("content") or "")
    if role == "user" and (note := read_note(content)) is not None:
        row = shell_row(note[0])
        await chat.add(row)
        await row.finish(note[1].startswith("exit code 0"), f"{note[1]}\n{SHARED}", None)
        row.expanded = True
    elif role == "user":
        await chat.add_user(content)
    elif role == "assistant":
        if content:
            answer = await chat.add_assistant()
            await answer.write(content)
            await answer.finish()
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            row = await chat.add_tool(
                call.get("id", ""), function.get("name", "?"), function.get("arguments", "")
            )
            recorded = results.get(call.get("id"), "not run: the turn was interrupted")
            await row.show_outcome(outcome_of(recorded), None)


__all__ = ["Replayed", "replay", "session_records", "show_resumed"]
