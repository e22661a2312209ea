"""More of `zizou acp` through the real process: plan mode set by the editor holds (a write is
refused) and the task state's plan reaches the editor as `plan`; the editor's own MCP server
starts and its tool is asked about like zizou's own; a client that vanishes mid-command ends
zizou cleanly, the command with it, the session file whole; no key is an auth error that
says how to give one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import HttpHeader, HttpMcpServer, McpServerStdio
from acp_harness import RecordingClient, new_session, zizou_acp, zizou_program
from conftest import cli_env, run_cli
from loopback import LoopbackServer
from mcp_harness import FAULT_SERVER, free_port, wait_for_port
from waiting import scaled, wait_until


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


async def test_plan_mode_refuses_writes_and_the_plan_reaches_the_editor(
    project: Path, zizou_home: Path
) -> None:
    plan = {
        "goal": "ship it",
        "plan": [
            {"id": "p1", "title": "read the code", "status": "done"},
            {"id": "p2", "title": "write the fix", "status": "pending"},
        ],
    }
    script = [
        call("update_state", merge=plan),
        call("write_file", path="fix.txt", content="fixed\n"),
        {"text": "planned"},
    ]
    client = RecordingClient()
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            session = await new_session(conn, project)
            await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan")])
        told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert answer.stop_reason == "end_turn"
    assert not (project / "fix.txt").exists() and "plan mode" in told[-1]
    [update] = client.of_kind("plan")
    assert update["entries"] == [
        {"content": "read the code", "priority": "medium", "status": "completed"},
        {"content": "write the fix", "priority": "medium", "status": "pending"},
    ]
    assert [u["kind"] for u in client.of_kind("tool_call")] == ["think", "edit", "switch_mode"]
    [(gate, options)] = client.asked  # the plan gate: the editor kept planning
    assert gate.kind == "switch_mode" and [o.option_id for o in options] == [
        "build",
        "keep_planning",
    ]
    assert not client.of_kind("current_mode_update")


async def test_the_plan_gate_asks_to_build_and_building_carries_the_plan_out(
    project: Path, zizou_home: Path
) -> None:
    item = {"id": "p1", "title": "write the fix", "status": "pending"}
    plan = {"goal": "ship it", "plan": [item]}
    script = [
        call("update_state", merge=plan),
        {"text": "here is the plan"},
        call("write_file", path="fix.txt", content="fixed\n"),
        {"text": "carried out"},
    ]
    client = RecordingClient(answers=["build"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project, "--yes") as (conn, _):
            session = await new_session(conn, project)
            await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan")])
        last = [m for m in srv.chat_requests[-1]["messages"] if m["role"] == "user"]
    assert answer.stop_reason == "end_turn"
    [(gate, _)] = client.asked
    assert gate.title == "Switch to build mode and carry out the plan"
    [started] = [u for u in client.of_kind("tool_call") if u["kind"] == "switch_mode"]
    assert "write the fix" in started["content"][0]["content"]["text"]
    assert [u["currentModeId"] for u in client.of_kind("current_mode_update")] == ["build"]
    assert (project / "fix.txt").read_text() == "fixed\n"
    assert last[-1]["content"] == "Go ahead with the plan."
    assert client.text() == "here is the plancarried out"


async def test_the_editors_mcp_server_starts_and_its_tool_asks_first(
    project: Path, zizou_home: Path
) -> None:
    server = McpServerStdio(
        name="clock", command=sys.executable, args=["-m", "mcp_server_time"], env=[]
    )
    script = [
        call("mcp__clock__get_current_time", timezone="UTC"),
        {"text": "it is now"},
    ]
    client = RecordingClient(answers=["allow_once"])
    with LoopbackServer(script) as srv:
        async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
            await conn.initialize(protocol_version=1)
            # session/new waits for the servers to start, as `zizou -p` does.
            session = await conn.new_session(cwd=str(project), mcp_servers=[server])
            answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("time")])
        told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    assert answer.stop_reason == "end_turn"
    [(asked, _)] = client.asked
    assert "clock" in asked.title
    assert "datetime" in told[0] and "UTC" in told[0], told


async def test_the_editors_http_mcp_server_is_reached_with_its_headers(
    project: Path, zizou_home: Path
) -> None:
    port = free_port()
    command = [sys.executable, FAULT_SERVER, "--http", str(port)]
    server = subprocess.Popen(
        [*command, "--require-header", "X-Token: s3cret-value-42"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        web = HttpMcpServer(
            type="http",
            name="web",
            url=f"http://127.0.0.1:{port}/mcp",
            headers=[HttpHeader(name="X-Token", value="s3cret-value-42")],
        )
        script = [call("mcp__web__echo", text="over http"), {"text": "echoed"}]
        client = RecordingClient(answers=["allow_once"])
        with LoopbackServer(script) as srv:
            async with zizou_acp(client, srv.base_url, zizou_home, project) as (conn, _):
                await conn.initialize(protocol_version=1)
                session = await conn.new_session(cwd=str(project), mcp_servers=[web])
                await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
            told = [m["content"] for m in srv.chat_requests[-1]["messages"] if m["role"] == "tool"]
    finally:
        server.kill()
        server.wait()
    assert told == ["echo: over http"]


def test_a_client_that_vanishes_mid_command_ends_zizou_and_the_command(
    project: Path, zizou_home: Path
) -> None:
    command = "sleep 600 & echo $! > sleeper.pid; wait"
    with LoopbackServer([call("run_bash", command=command)]) as srv:
        process = subprocess.Popen(
            [zizou_program(), "acp", "--api-base", srv.base_url, "--yes", "--sandbox", "off"],
            cwd=project,
            env=cli_env(zizou_home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert process.stdin is not None and process.stdout is not None
        try:
            for message in (
                {"id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
                {
                    "id": 2,
                    "method": "session/new",
                    "params": {"cwd": str(project), "mcpServers": []},
                },
            ):
                process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
                process.stdin.flush()
                reply = json.loads(process.stdout.readline())
            session_id = reply["result"]["sessionId"]
            prompt = {"sessionId": session_id, "prompt": [{"type": "text", "text": "work"}]}
            request = {"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": prompt}
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            wait_until(
                lambda: (
                    (project / "sleeper.pid").read_text().strip()
                    if (project / "sleeper.pid").exists()
                    else ""
                ),
                "the command to start",
            )
            process.stdin.close()  # the editor is gone
            code = process.wait(timeout=scaled(30))
        finally:
            process.kill()
    assert code == 0
    sleeper = int((project / "sleeper.pid").read_text())
    wait_until(lambda: not _alive(sleeper), "the command's process to end", limit_s=10)
    [session] = (project / ".zizou" / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in session.read_text().splitlines()]
    turns = [r for r in records if r["kind"] == "turn"]
    assert [t["event"] for t in turns] == ["started", "finished"]
    assert turns[-1]["reason"] == "cancelled"
    # Nothing lost: `zizou -c` goes on with the session, the stopped command's result in it.
    with LoopbackServer([{"text": "going on"}]) as srv:
        resumed = run_cli(["-c", "-p", "go on", "--api-base", srv.base_url], project, zizou_home)
        [request] = srv.chat_requests
    assert resumed.code == 0 and "going on" in resumed.stdout, resumed.stderr
    sent = [m for m in request["messages"] if m["role"] != "system"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "user"]
    assert sent[0]["content"] == "work" and "interrupted" in sent[2]["content"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


def test_no_key_is_an_auth_error_that_says_how_to_give_one(project: Path, zizou_home: Path) -> None:
    env = {k: v for k, v in cli_env(zizou_home).items() if k != "OPENAI_API_KEY"}
    lines = [
        {"id": 1, "method": "initialize", "params": {"protocolVersion": 1}},
        {"id": 2, "method": "session/new", "params": {"cwd": str(project), "mcpServers": []}},
        {"id": 3, "method": "authenticate", "params": {"methodId": "zizou-keys"}},
    ]
    text = "".join(json.dumps({"jsonrpc": "2.0", **line}) + "\n" for line in lines)
    process = subprocess.Popen(
        [zizou_program(), "acp", "--model", "openai/gpt-4o"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(text)
        process.stdin.flush()
        replies = {}
        while len(replies) < 3:
            reply = json.loads(process.stdout.readline())
            replies[reply["id"]] = reply
        process.stdin.close()
        process.wait(timeout=scaled(30))
    finally:
        process.kill()
    assert replies[1]["result"]["authMethods"][0]["id"] == "zizou-keys"
    for failed in (replies[2], replies[3]):
        assert failed["error"]["code"] == -32000
        assert "zizou keys set openai" in failed["error"]["data"]["message"]
