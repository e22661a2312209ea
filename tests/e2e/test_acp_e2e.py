"""The real `zizou acp` process, driven over its pipes by the ACP SDK's client side against the
loopback model server: a turn that reads, edits and runs a command the editor allows; a
rejected command; a cancel mid-command; bad input answered and survived; stdout that holds
only protocol messages; a session loaded again in a new process."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

from acp import RequestError, text_block
from acp_harness import RecordingClient, debug_log, new_session, zizou_acp, zizou_program
from conftest import cli_env
from loopback import LoopbackServer
from waiting import running_process, scaled, unique_sleep, until


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


async def test_a_turn_reads_edits_and_runs_the_command_the_editor_allows(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("old line\n")
    script = [
        call("read_file", path="notes.txt"),
        call("edit_file", path="notes.txt", old_string="old line", new_string="new line"),
        call("run_bash", command="touch made.txt"),
        {"text": "all done"},
    ]
    client = RecordingClient(answers=["allow_once"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            answer = await conn.prompt(session_id=session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn"
    assert client.text() == "all done"
    assert (project / "notes.txt").read_text() == "new line\n"
    assert (project / "made.txt").exists()
    started = client.of_kind("tool_call")
    assert [u["kind"] for u in started] == ["read", "edit", "execute"]
    assert started[0]["locations"] == [{"path": str(project / "notes.txt")}]
    assert started[2]["title"] == "Run `touch made.txt`"
    ends = [u for u in client.of_kind("tool_call_update") if u.get("status") == "completed"]
    assert [u["toolCallId"] for u in ends] == [u["toolCallId"] for u in started]
    [diff] = [c for c in ends[1]["content"] if c["type"] == "diff"]
    assert diff["path"] == str(project / "notes.txt")
    assert "old line" in diff["oldText"] and "new line" in diff["newText"]
    [(asked, options)] = client.asked
    assert asked.tool_call_id == started[2]["toolCallId"] and asked.title == "touch made.txt"
    kinds = [option.kind for option in options]
    assert kinds[0] == "allow_once" and "reject_once" in kinds and "reject_always" in kinds


async def test_a_command_the_editor_rejects_does_not_run_and_the_model_is_told(
    project: Path, zizou_home: Path
) -> None:
    script = [call("run_bash", command="touch made.txt"), {"text": "understood"}]
    client = RecordingClient(answers=["reject_once"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            answer = await conn.prompt(session_id=session_id, prompt=[text_block("go")])
        told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert answer.stop_reason == "end_turn"
    assert not (project / "made.txt").exists()
    assert "did not approve" in told[0]
    [failed] = [u for u in client.of_kind("tool_call_update") if u.get("status") == "failed"]
    assert failed["toolCallId"] == client.of_kind("tool_call")[0]["toolCallId"]


async def test_an_editor_that_answers_cancelled_denies(project: Path, zizou_home: Path) -> None:
    script = [call("run_bash", command="touch made.txt"), {"text": "understood"}]
    client = RecordingClient(answers=["cancelled"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            await conn.prompt(session_id=session_id, prompt=[text_block("go")])
    assert not (project / "made.txt").exists()
    assert "PERMISSION-DECIDED" in debug_log(project)


async def test_cancel_stops_a_long_command_at_once_and_the_session_goes_on(
    project: Path, zizou_home: Path
) -> None:
    sleep, sleeping = unique_sleep()
    command = f"echo started the work; touch made.txt; {sleep}"
    script = [call("run_bash", command=command), {"text": "still here", "match": "again"}]
    client = RecordingClient(answers=["allow_once"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            turn = asyncio.ensure_future(
                conn.prompt(session_id=session_id, prompt=[text_block("work")])
            )
            # In the sandbox its files arrive when it ends: its process says that it runs.
            await until(lambda: running_process(sleeping), "the command to run", 60)
            await conn.cancel(session_id=session_id)
            answer = await asyncio.wait_for(turn, scaled(20))
            again = await conn.prompt(session_id=session_id, prompt=[text_block("again")])
    assert answer.stop_reason == "cancelled"
    assert again.stop_reason == "end_turn" and client.text().endswith("still here")
    [session] = (project / ".zizou" / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    endings = [r["reason"] for r in records if r["kind"] == "turn" and r["event"] == "finished"]
    assert endings == ["cancelled", "done"]
    results = [
        r["message"]["content"]
        for r in records
        if r["kind"] == "message" and r["message"].get("role") == "tool"
    ]
    assert "interrupted" in results[0] and "started the work" in results[0]


def exchange(lines: list[str], project: Path, home: Path, *extra: str) -> tuple[str, str]:
    """Write `lines` to a raw `zizou acp`, then read until it answered every request that has
    an id (and a parse error per bad line); its stdout and stderr."""
    process = subprocess.Popen(
        [zizou_program(), "acp", "--sandbox", "off", *extra],
        cwd=project,
        env=cli_env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    out: list[str] = []
    try:
        for line in lines:
            process.stdin.write(line + "\n")
            process.stdin.flush()
            out.append(process.stdout.readline())
        rest, err = process.communicate(timeout=scaled(30))  # stdin closed: it ends
    finally:
        process.kill()
    return "".join(out) + rest, err


def test_bad_input_is_answered_and_zizou_keeps_serving(project: Path, zizou_home: Path) -> None:
    lines = [
        "this is not json",
        "[1, 2]",
        "{}",
        json.dumps({"jsonrpc": "2.0", "id": 9, "method": 7}),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": {"cwd": 5}}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {}}),
        json.dumps(
            {"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"protocolVersion": 1}}
        ),
    ]
    stdout, stderr = exchange(lines, project, zizou_home)
    replies = [json.loads(line) for line in stdout.splitlines()]
    codes = [reply.get("error", {}).get("code") for reply in replies]
    assert codes == [-32700, -32600, -32600, -32600, -32601, -32602, -32602, None], stderr
    assert replies[3]["id"] == 9
    assert replies[-1]["result"]["protocolVersion"] == 1
    assert replies[-1]["result"]["agentCapabilities"]["loadSession"] is True


NOISY_HOOK = """\
import os
print("a stray print as the hook loads")
os.write(1, b"stray bytes on descriptor 1\\n")

from zizou.hooks import PromptContext, StepModifier, effect


@effect()
def noisy(ctx: PromptContext, step: StepModifier) -> None:
    print("a stray print at every step")
"""


def test_stdout_holds_protocol_messages_only_whatever_else_prints(
    project: Path, zizou_home: Path
) -> None:
    hooks = project / ".zizou" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "noisy.py").write_text(NOISY_HOOK)
    with LoopbackServer([{"text": "quiet answer"}]) as srv:
        new = {"cwd": str(project), "mcpServers": []}
        prompt = {"sessionId": "SESSION", "prompt": [{"type": "text", "text": "hi"}]}
        stdout, stderr = _session_exchange(srv.base_url, project, zizou_home, new, prompt)
    for line in stdout.splitlines():
        assert json.loads(line)["jsonrpc"] == "2.0", line
    assert "stray" in stderr and "stray" not in stdout
    assert json.loads(stdout.splitlines()[-1])["result"]["stopReason"] == "end_turn"


def _session_exchange(
    base_url: str, project: Path, home: Path, new: dict[str, Any], prompt: dict[str, Any]
) -> tuple[str, str]:
    """initialize, session/new, then one prompt (its session id filled in), raw."""
    process = subprocess.Popen(
        [zizou_program(), "acp", "--api-base", base_url, "--trust-hooks"],
        cwd=project,
        env=cli_env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    out: list[str] = []

    def ask(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None and process.stdout is not None
        message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            out.append(line)
            reply = json.loads(line)
            if reply.get("id") == request_id:
                return reply

    try:
        ask(1, "initialize", {"protocolVersion": 1})
        session_id = ask(2, "session/new", new)["result"]["sessionId"]
        ask(3, "session/prompt", {**prompt, "sessionId": session_id})
        rest, err = process.communicate(timeout=scaled(30))  # stdin closed: it ends
    finally:
        process.kill()
    return "".join(out) + rest, err


async def test_a_session_loads_in_a_new_process_replaying_its_conversation(
    project: Path, zizou_home: Path
) -> None:
    (project / "notes.txt").write_text("old line\n")
    script = [
        call("read_file", path="notes.txt"),
        {"text": "the notes say old line"},
        {"text": "yes, I remember", "match": "remember"},
    ]
    with LoopbackServer(script) as srv:
        first = RecordingClient()
        async with zizou_acp(first, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            await conn.prompt(session_id=session_id, prompt=[text_block("read the notes")])
        second = RecordingClient()
        async with zizou_acp(second, srv.base_url, zizou_home, project) as (conn, _):
            await conn.initialize(protocol_version=1)
            listed = await conn.list_sessions(cwd=str(project))
            loaded = await conn.load_session(
                cwd=str(project), session_id=session_id, mcp_servers=[]
            )
            replay = [
                u for u in second.updates if u["sessionUpdate"] != "available_commands_update"
            ]
            answer = await conn.prompt(session_id=session_id, prompt=[text_block("remember?")])
        sent = srv.chat_requests[-1]["messages"]
    assert [(s.session_id, s.title) for s in listed.sessions] == [(session_id, "read the notes")]
    assert loaded is not None and loaded.modes is not None
    assert loaded.modes.current_mode_id == "build"
    kinds = [u["sessionUpdate"] for u in replay]
    assert kinds[0] == "user_message_chunk" and replay[0]["content"]["text"] == "read the notes"
    assert "tool_call" in kinds and "tool_call_update" in kinds
    assert replay[-1]["content"]["text"] == "the notes say old line"
    assert answer.stop_reason == "end_turn"
    assert any("the notes say old line" in str(m.get("content")) for m in sent)


async def test_allow_always_saves_the_rule_and_reject_always_stops_asking(
    project: Path, zizou_home: Path
) -> None:
    script = [
        call("run_bash", command="sleep 0"),
        call("run_bash", command="sleep 0.01"),  # the saved rule covers it: no question
        call("run_bash", command="rm -f kept.txt"),
        call("run_bash", command="rm -f kept.txt"),  # rejected for the session: no question
        {"text": "done"},
    ]
    (project / "kept.txt").write_text("keep me\n")
    client = RecordingClient(answers=["allow_always", "reject_always"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            await conn.prompt(session_id=session_id, prompt=[text_block("go")])
        told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert [asked.title for asked, _ in client.asked] == ["sleep 0", "rm -f kept.txt"]
    assert (project / "kept.txt").exists()
    saved = json.loads((zizou_home / "permissions.json").read_text())
    [rules] = saved["projects"].values()
    assert rules["bash_prefixes"] == ["sleep"]
    assert "Error" not in told[1]
    assert "rejected this for the rest of the session" in told[3]


async def test_the_step_cap_the_length_cap_and_a_provider_error_each_answer_the_prompt(
    project: Path, zizou_home: Path
) -> None:
    script = [
        call("list_dir"),
        {"text": "cut sho", "finish_reason": "length", "match": "second"},
        {"status": 400, "error": "the request is malformed", "match": "third"},
        {"text": "fine again", "match": "fourth"},
    ]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project, "--max-steps", "1") as (
            conn,
            _,
        ):
            session_id = (await new_session(conn, project)).session_id
            answers = []
            for word in ("first", "second"):
                answer = await conn.prompt(session_id=session_id, prompt=[text_block(word)])
                answers.append(answer.stop_reason)
            try:
                await conn.prompt(session_id=session_id, prompt=[text_block("third")])
            except RequestError as exc:
                failed: RequestError | None = exc
            else:
                failed = None
            last = await conn.prompt(session_id=session_id, prompt=[text_block("fourth")])
    assert answers == ["max_turn_requests", "max_tokens"]
    assert failed is not None and "malformed" in json.dumps(failed.data)
    assert last.stop_reason == "end_turn"


async def test_a_refusal_and_the_spending_cap_each_answer_the_prompt(
    project: Path, zizou_home: Path
) -> None:
    refusal = [{"text": "I will not", "finish_reason": "content_filter"}]
    with LoopbackServer(refusal) as srv:
        async with zizou_acp(RecordingClient(), srv.base_url, zizou_home, project) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            refused = await conn.prompt(session_id=session_id, prompt=[text_block("first")])
    client = RecordingClient()
    with LoopbackServer([{"text": "never sent"}]) as srv:
        cap = ("--max-budget-usd", "0.000001")
        async with zizou_acp(client, srv.base_url, zizou_home, project, *cap) as (conn, _):
            session_id = (await new_session(conn, project)).session_id
            capped = await conn.prompt(session_id=session_id, prompt=[text_block("second")])
        sent = len(srv.chat_requests)
    assert refused.stop_reason == "refusal"
    assert capped.stop_reason == "max_tokens" and sent == 0  # refused before it went out
    assert "budget" in json.dumps(client.of_kind("agent_thought_chunk")).lower()
