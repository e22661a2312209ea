"""A resumed conversation (`-c` / `-r`, `/sessions`), shown as it went, from the session file.

The file's records are read in order: the user's messages, the answers, a row per tool call
with its result (read as the live view reads it, `zizou.ui.outcome`), and where a turn ended
early, the notice the live view showed (an interrupted turn, or one that never ended because the
app was stopped). The turn records' usage gives back the running totals, so `/cost` and the
sidebar say what they said before; the turn count is the one `zizou sessions list` shows.
Durations and diffs are not in the file, so resumed rows show neither. A turn undone (/undo,
/rewind, `zizou undo`) is left out, with its turn marks, and one redone comes back.

The app shows the conversation again this way after an undo or a redo (`show_conversation`),
keeping its running totals: what an undone turn cost was spent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zizou.contracts.conversation import turn_starts
from zizou.contracts.events import Usage
from zizou.contracts.messages import (
    AssistantMessage,
    Message,
    ToolCallPart,
    ToolMessage,
    UserMessage,
    from_wire,
    to_wire,
)
from zizou.contracts.protocols import ToolCall
from zizou.errors import UsageError
from zizou.sessions import SessionStore
from zizou.sessions.records import (
    CompactedRecord,
    MessageRecord,
    Record,
    RedoneRecord,
    TurnRecord,
    UndoneRecord,
)
from zizou.sessions.turns import replay as replay_line
from zizou.ui.endings import ENDINGS, UNFINISHED
from zizou.ui.outcome import outcome_of
from zizou.ui.session import UiSession
from zizou.ui.shell import SHARED, shell_row
from zizou.ui.widgets.chat_view import ChatView

Shown = Message | TurnRecord  # what the view replays, in the file's order


@dataclass
class Replayed:
    totals: Usage
    turns: int = 0
    last_turn: Usage | None = None


def session_records(session: UiSession) -> list[Shown]:
    """The session file's messages and turn marks, when the file holds the conversation the
    session has; else (a session that is not saved) its messages alone."""
    kernel = session.kernel
    records = kernel.state.conversation.records
    try:
        lines: list[Record] = SessionStore(session.root).records(kernel.session_id)
    except UsageError:
        lines = []
    loaded: list[dict[str, Any]] = []  # the conversation as loading the file rebuilds it
    shown: list[Shown] = []  # shown whole: a history shortened for the model is still what was said
    cut: list[tuple[int, list[Shown]]] = []  # what each undone turn took away, for its redo
    for line in lines:
        if isinstance(line, MessageRecord | CompactedRecord | UndoneRecord | RedoneRecord):
            replay_line(loaded, line)
        if isinstance(line, MessageRecord):
            shown.append(from_wire(line.message))
        elif isinstance(line, TurnRecord):
            shown.append(line)
        elif isinstance(line, UndoneRecord):
            cut.append((line.turn, _cut(shown, line)))
        elif isinstance(line, RedoneRecord):
            shown += _redone(cut, line)
    if [to_wire(from_wire(m)) for m in loaded] != [to_wire(r) for r in records]:
        return list(records)
    return shown


def _cut(shown: list[Shown], undone: UndoneRecord) -> list[Shown]:
    """Take the undone turns off the end of `shown` (the conversation's last turns are the
    ones undone), with the mark of the first one's start."""
    turns = len(turn_starts(undone.messages))
    messages = [(i, record) for i, record in enumerate(shown) if not isinstance(record, TurnRecord)]
    starts = turn_starts([record for _, record in messages])
    if not turns or len(starts) < turns:
        return []
    start = messages[starts[-turns]][0]
    while start > 0 and _started(shown[start - 1]):
        start -= 1
    taken = shown[start:]
    del shown[start:]
    return taken


def _started(record: Shown) -> bool:
    return isinstance(record, TurnRecord) and record.event == "started"


def _redone(cut: list[tuple[int, list[Shown]]], redone: RedoneRecord) -> list[Shown]:
    for index in range(len(cut) - 1, -1, -1):
        if cut[index][0] == redone.turn:
            return cut.pop(index)[1]
    return [from_wire(m) for m in redone.messages]


async def show_conversation(chat: ChatView, session: UiSession) -> Replayed:
    """Show the session's conversation (the file is read in a thread: a long session is
    megabytes of JSON); what it adds up to is returned."""
    shown = await asyncio.to_thread(session_records, session)
    kernel = session.kernel

    def label(call: ToolCallPart) -> str:  # as the live row is labelled: by the tool
        return kernel.call_label(ToolCall(call.id, call.name, call.arguments))

    return await replay(chat, shown, label)


async def show_resumed(chat: ChatView, session: UiSession) -> None:
    """Show the session's conversation and take back its totals."""
    replayed = await show_conversation(chat, session)
    session.restore(replayed.totals, replayed.turns, replayed.last_turn)


async def replay(
    chat: ChatView, shown: list[Shown], label: Callable[[ToolCallPart], str]
) -> Replayed:
    results = {r.tool_call_id: r for r in shown if isinstance(r, ToolMessage)}
    done = Replayed(Usage())
    open_turn = False
    for record in shown:
        if isinstance(record, TurnRecord) and record.event == "started":
            if open_turn:
                await chat.add_notice(UNFINISHED, "warning")
            open_turn, done.turns = True, done.turns + 1
        elif isinstance(record, TurnRecord):
            open_turn = False
            usage = Usage(
                _count(record.usage, "input_tokens"),
                _count(record.usage, "output_tokens"),
                cache_read_tokens=_count(record.usage, "cache_read_tokens"),
                cache_write_tokens=_count(record.usage, "cache_write_tokens"),
            )
            done.totals, done.last_turn = done.totals + usage, usage
            if record.reason in ENDINGS:
                await chat.add_notice(*ENDINGS[record.reason])
        else:
            await _message(chat, record, results, label)
    if open_turn:
        await chat.add_notice(UNFINISHED, "warning")
    return done


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key)
    return value if isinstance(value, int) else 0


async def _message(
    chat: ChatView,
    message: Message,
    results: dict[str, ToolMessage],
    label: Callable[[ToolCallPart], str],
) -> None:
    match message:
        case UserMessage(shell=run) if run is not None:
            row = shell_row(run.command)
            await chat.add(row)
            await row.finish(run.ok, f"{run.result}\n{SHARED}", None)
            row.expanded = True
        case UserMessage(checks=True, content=content):
            await chat.add_notice(content, "warning")
        case UserMessage(content=content):
            chat.add_user(content)
        case AssistantMessage(content=content, tool_calls=calls):
            if content:
                answer = chat.add_assistant()
                answer.write(content)
                await answer.finish()
            for call in calls:
                row = await chat.add_tool(call.id, call.name, call.arguments, label(call))
                result = results.get(call.id)
                if result is None:
                    await row.show_outcome(outcome_of("not run: the turn was interrupted"), None)
                else:
                    await row.show_outcome(outcome_of(result.content, result.ok), None)
        case ToolMessage():
            pass  # shown with the call it answers


__all__ = ["Replayed", "replay", "session_records", "show_conversation", "show_resumed"]
