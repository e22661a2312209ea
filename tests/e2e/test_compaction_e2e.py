"""A conversation shortened to fit the context window stays short across `zizou -c`: the real
`zizou -p` process against the loopback server, which answers one request with a context-window
error. The shortening is a `compacted` line in the session file and a note in the debug log; the
lines before it are kept, so a crash while it is written loses nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

from zizou.contracts.compaction import TURN_PLACEHOLDER
from zizou.contracts.messages import from_wire, to_wire
from zizou.sessions import SessionStore

CONFIG = "[retry]\nbase_delay_s = 0.05\n"
OVERFLOW = {
    "status": 400,
    "error": "This model's maximum context length is 1000 tokens. However, your messages "
    "resulted in 9000 tokens.",
}
BIG = "lorem ipsum\n" * 400


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def ask(srv: LoopbackServer, project: Path, home: Path, prompt: str, *extra: str) -> CliResult:
    args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url]
    result = run_cli([*args, *extra], project, home)
    assert result.code == 0, result.stderr
    return result


def conversation(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The history a request carries, without the system prompt."""
    return [m for m in request["messages"] if m["role"] != "system"]


def as_sent(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored messages (typed records, or wire dicts in a compacted line) as the provider
    receives them (a `None` content is left out)."""
    wire = [to_wire(from_wire(m)) for m in messages]
    return [{k: v for k, v in m.items() if v is not None} for m in wire]


def session_lines(project: Path) -> list[dict[str, Any]]:
    store = SessionStore(project)
    session_id = store.active_id()
    assert session_id is not None
    return [json.loads(line) for line in store.path(session_id).read_text().splitlines()]


def overflow_in_the_second_turn(srv: LoopbackServer, project: Path, home: Path) -> None:
    """Turn 1 reads a big file; turn 2 (`-c`) overflows and is shortened: requests 0-4."""
    (home / "config.toml").write_text(CONFIG)
    (project / "big.txt").write_text(BIG)
    ask(srv, project, home, "read big.txt")
    ask(srv, project, home, "list the files", "-c")


def test_a_resumed_session_goes_on_from_the_shortened_history(
    project: Path, zizou_home: Path
) -> None:
    script = [
        call("read_file", path="big.txt"),
        {"text": "Read it."},
        call("list_dir", path="."),
        OVERFLOW,  # the second step of turn 2: shortened and sent again
        {"text": "Listed."},
        {"text": "Done."},  # turn 3, resumed with -c
    ]
    with LoopbackServer(script) as srv:
        overflow_in_the_second_turn(srv, project, zizou_home)
        log = (project / "zizou-debug.log").read_text()
        ask(srv, project, zizou_home, "and now?", "-c")
        requests = srv.chat_requests
    assert len(requests) == 6
    overflowed, resent, resumed = requests[3], requests[4], requests[5]
    assert "lorem ipsum" in json.dumps(overflowed["messages"])
    assert "lorem ipsum" not in json.dumps(resent["messages"])
    assert TURN_PLACEHOLDER in json.dumps(resent["messages"])
    # the resumed request is the shortened history, then what came after it
    assert conversation(resumed) == [
        *conversation(resent),
        {"role": "assistant", "content": "Listed."},
        {"role": "user", "content": "and now?"},
    ]

    lines = session_lines(project)
    [compacted] = [line for line in lines if line["kind"] == "compacted"]
    assert as_sent(compacted["messages"]) == conversation(resent)
    before = len(conversation(overflowed))
    assert compacted["dropped"] == before - len(conversation(resent)) > 0
    # nothing is deleted: the full history is still in the file, before the compacted line
    full = [line["message"] for line in lines[: lines.index(compacted)] if "message" in line]
    assert as_sent(full) == conversation(overflowed)

    assert "it replaces the conversation" in log
    assert f"({len(conversation(resent))} messages, {compacted['dropped']} fewer)" in log

    listing = run_cli(["sessions", "list"], project, zizou_home)
    assert "3 turns" in listing.stdout and "read big.txt" in listing.stdout


def test_a_crash_while_the_compacted_line_is_written_loses_nothing(
    project: Path, zizou_home: Path
) -> None:
    script = [
        call("read_file", path="big.txt"),
        {"text": "Read it."},
        call("list_dir", path="."),
        OVERFLOW,
        {"text": "Listed."},
        {"text": "Done."},
    ]
    with LoopbackServer(script) as srv:
        overflow_in_the_second_turn(srv, project, zizou_home)
        store = SessionStore(project)
        session_id = store.active_id()
        assert session_id is not None
        path = store.path(session_id)
        raw = path.read_bytes()
        start = raw.index(b'{"kind":"compacted"')
        path.write_bytes(raw[: start + (raw.index(b"\n", start) - start) // 2])  # torn mid-line
        resumed = ask(srv, project, zizou_home, "and now?", "-c")
        requests = srv.chat_requests
    assert "torn last line" in resumed.stderr
    # the full history up to the overflow is what loads, with the new message after it
    assert conversation(requests[5]) == [
        *conversation(requests[3]),
        {"role": "user", "content": "and now?"},
    ]
    # the resumed run appended to the torn line: its records are still read
    loaded = store.load(session_id)
    assert loaded.turns == 3 and loaded.wire()[-1] == {"role": "assistant", "content": "Done."}


def test_a_session_file_without_compacted_lines_still_resumes(
    project: Path, zizou_home: Path
) -> None:
    (zizou_home / "config.toml").write_text(CONFIG)
    sessions = project / ".zizou" / "sessions"
    sessions.mkdir(parents=True)
    old = [
        {"kind": "meta", "v": 1, "id": "20240101-000000-abcdef", "created": "2024-01-01T00:00:00"},
        {"kind": "turn", "event": "started", "ts": "2024-01-01T00:00:01"},
        {"kind": "message", "message": {"role": "user", "content": "remember 42"}},
        {"kind": "message", "message": {"role": "assistant", "content": "Noted: 42."}},
        {"kind": "turn", "event": "finished", "ts": "2024-01-01T00:00:02", "reason": "done"},
    ]
    (sessions / "20240101-000000-abcdef.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in old)
    )
    with LoopbackServer([{"text": "It was 42."}]) as srv:
        ask(srv, project, zizou_home, "what number?", "-r", "20240101")
        [request] = srv.chat_requests
    assert conversation(request) == [
        {"role": "user", "content": "remember 42"},
        {"role": "assistant", "content": "Noted: 42."},
        {"role": "user", "content": "what number?"},
    ]
