"""One conversation, saved as a session file, that every reader of turns must cut the same way:
turn 0 ("one": a file changed, a checks report whose text is the next message's, a fix), then a
shared `!ls` and "two", which open the next turn together (named 2, by its last user message),
undone with the file it changed and its own checks report. Format 2 keeps the typed fields;
format 1 (older files) has no checks report, and its shared command is a plain user message."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "20260101-120000-turns1"
TS = "2026-01-01T12:00:00Z"
SHELL = {"command": "ls", "result": "exit code 0", "ok": True}


def call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "name": "write_file", "arguments": "{}"}


ONE: list[dict[str, Any]] = [
    {"role": "user", "content": "one"},
    {"role": "assistant", "tool_calls": [call("c1")]},
    {"role": "tool", "tool_call_id": "c1", "content": "wrote a.txt", "ok": True},
    {"role": "assistant", "content": "done"},
    {"role": "user", "content": "two", "checks": True},
    {"role": "assistant", "content": "fixed"},
]
TWO: list[dict[str, Any]] = [
    {"role": "user", "content": "$ ls\nexit code 0", "shell": SHELL},
    {"role": "user", "content": "two"},
    {"role": "assistant", "tool_calls": [call("c2")]},
    {"role": "tool", "tool_call_id": "c2", "content": "wrote b.txt", "ok": True},
    {"role": "assistant", "content": "b"},
    {"role": "user", "content": "The checks found: b.txt:1: E", "checks": True},
    {"role": "assistant", "content": "b fixed"},
]


def old_format(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a format 1 file holds: wire messages, with no checks report (there was none)."""
    wire = []
    for message in messages:
        if message.get("checks"):
            continue
        kept = {k: v for k, v in message.items() if k not in ("shell", "ok")}
        if "tool_calls" in kept:
            kept["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": "{}"},
                }
                for c in kept["tool_calls"]
            ]
        wire.append(kept)
    return wire


def lines(version: int) -> list[dict[str, Any]]:
    one = ONE if version >= 2 else old_format(ONE)
    two = TWO if version >= 2 else old_format(TWO)
    turn = len([m for m in one if m["role"] == "user" and not m.get("checks")])  # 1
    name = turn + 1  # the turn is named by its last user message ("two")
    change = {"path": "b.txt", "before": None, "after": "0" * 64}
    return [
        {"kind": "meta", "v": version, "id": SESSION, "created": TS, "model": "scripted"},
        {"kind": "turn", "event": "started", "ts": TS},
        *({"kind": "message", "message": m} for m in one[:2]),
        {"kind": "checkpoint", "turn": 0, "path": "a.txt", "after": "1" * 64, "settled": True},
        *({"kind": "message", "message": m} for m in one[2:]),
        {"kind": "turn", "event": "finished", "ts": TS, "reason": "done"},
        {"kind": "message", "message": two[0]},
        {"kind": "turn", "event": "started", "ts": TS},
        *({"kind": "message", "message": m} for m in two[1:3]),
        {"kind": "checkpoint", "turn": name, **change, "settled": True},
        *({"kind": "message", "message": m} for m in two[3:]),
        {"kind": "turn", "event": "finished", "ts": TS, "reason": "done"},
        {"kind": "undone", "ts": TS, "turn": name, "messages": two, "files": [change]},
    ]


def write_session(root: Path, version: int) -> Path:
    sessions = root / ".zizou" / "sessions"
    sessions.mkdir(parents=True)
    path = sessions / f"{SESSION}.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines(version)))
    (root / ".zizou" / "info.json").write_text(json.dumps({"active_session": SESSION}))
    return path
