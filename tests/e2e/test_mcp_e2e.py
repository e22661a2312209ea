"""The real `zizou` CLI with real MCP servers: the `mcp-server-git` and `mcp-server-time`
packages as stdio servers (in the command sandbox where there is one), and the SDK-written
fault server, against the loopback model."""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, run_cli
from loopback import LoopbackServer
from mcp_harness import (
    FAULT_SERVER,
    config_text,
    fault,
    free_port,
    git_server,
    time_server,
    wait_for_port,
)

# Each test starts zizou (and its servers) several times: on a loaded machine that is slow.
pytestmark = [pytest.mark.usefixtures("git_installed"), pytest.mark.timeout(300)]


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def tool_names(request: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in request.get("tools", [])}


@pytest.fixture
def repo(project: Path) -> Path:
    """The project, a git repository with one commit and one changed file."""
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
    git = ["git", "-c", "user.name=Test", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=project, check=True, env=env)
    (project / "notes.txt").write_text("first\n")
    subprocess.run([*git, "add", "notes.txt"], cwd=project, check=True, env=env)
    subprocess.run(
        [*git, "commit", "-q", "-m", "Start the scratch notes"], cwd=project, check=True, env=env
    )
    (project / "notes.txt").write_text("first\nsecond\n")
    return project


def headless(srv: LoopbackServer, project: Path, home: Path, *more: str, **env: str) -> CliResult:
    args = ["-p", "what changed?", "--api-base", srv.base_url, "--output-format", "json"]
    return run_cli([*args, *more], project, home, **env)


def test_the_model_calls_git_status_and_git_log_and_reads_their_output(
    repo: Path, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(git=git_server(repo), time=time_server()))
    listed = run_cli(["mcp", "list"], repo, zizou_home)
    assert listed.code == 0, listed.stderr
    assert "git (user, stdio)" in listed.stdout and "✓ ready · 12 tools" in listed.stdout
    assert "✓ ready · 2 tools" in listed.stdout  # time
    script = [
        {"tool_calls": [call("mcp__git__git_status", repo_path=str(repo))]},
        {"tool_calls": [call("mcp__git__git_log", repo_path=str(repo), max_count=3)]},
        {"tool_calls": [call("mcp__time__get_current_time", timezone="UTC")]},
        {"text": "notes.txt changed since the first commit."},
    ]
    with LoopbackServer(script) as srv:
        allow = ["--allow", "mcp__git__*", "--allow", "mcp__time__get_current_time"]
        result = headless(srv, repo, zizou_home, *allow)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert [(c["name"], c["ok"]) for c in out["tool_calls"]] == [
        ("mcp__git__git_status", True),
        ("mcp__git__git_log", True),
        ("mcp__time__get_current_time", True),
    ]
    # `zizou mcp list` remembered the tools: the first request offers them already.
    assert {"mcp__git__git_status", "mcp__git__git_log"} <= tool_names(requests[0])
    [status] = tool_messages(requests[1])
    assert "On branch main" in status and "notes.txt" in status
    log = tool_messages(requests[2])[-1]
    assert "Start the scratch notes" in log and "Test" in log
    assert '"timezone": "UTC"' in tool_messages(requests[3])[-1]
    audit = (repo / "zizou-debug.log").read_text()
    assert 'MCP git -> {"jsonrpc":"2.0","id":' in audit and '"method":"tools/call"' in audit
    assert "MCP git <- " in audit and "Start the scratch notes" in audit
    session = next((repo / ".zizou" / "sessions").glob("*.jsonl")).read_text()
    assert "Start the scratch notes" in session


def test_the_first_step_offers_the_tools_of_a_server_never_started_before(
    repo: Path, zizou_home: Path
) -> None:
    """No `zizou mcp list` ran, so no tools are remembered: the run waits for the server to be
    ready (a generous wait: a loaded machine can take seconds to start it), and the model's
    first call to it runs."""
    (zizou_home / "config.toml").write_text("[mcp]\nstartup_wait_s = 120\n")
    (zizou_home / "mcp.json").write_text(config_text(git=git_server(repo)))
    script = [
        {"tool_calls": [call("mcp__git__git_status", repo_path=str(repo))]},
        {"text": "notes.txt is changed."},
    ]
    with LoopbackServer(script) as srv:
        result = headless(srv, repo, zizou_home, "--allow", "mcp__git__git_status")
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert "mcp__git__git_status" in tool_names(requests[0])
    assert result.json()["tool_calls"] == [{"name": "mcp__git__git_status", "ok": True}]
    assert "On branch main" in tool_messages(requests[1])[0]
    assert "not ready" not in result.stderr


def test_headless_refuses_a_call_nothing_approved_and_says_the_rule(
    repo: Path, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(git=git_server(repo)))
    assert run_cli(["mcp", "list"], repo, zizou_home).code == 0
    script = [
        {"tool_calls": [call("mcp__git__git_status", repo_path=str(repo))]},
        {"text": "I was not allowed."},
    ]
    with LoopbackServer(script) as srv:
        result = headless(srv, repo, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert result.json()["tool_calls"] == [{"name": "mcp__git__git_status", "ok": False}]
    [refusal] = tool_messages(requests[1])
    assert "--allow mcp__git__git_status" in refusal and "On branch" not in refusal


def test_a_projects_mcp_json_starts_nothing_until_approved(repo: Path, zizou_home: Path) -> None:
    (repo / ".mcp.json").write_text(config_text(time=time_server()))
    with LoopbackServer([{"text": "a"}]) as srv:
        before = headless(srv, repo, zizou_home)
        requests = srv.chat_requests
    listed = run_cli(["mcp", "list"], repo, zizou_home)
    approved = run_cli(["mcp", "approve", "--yes"], repo, zizou_home)
    assert before.code == 0 and "were not started" in before.stderr
    assert "zizou mcp approve" in before.stderr
    assert not any(n.startswith("mcp__") for n in tool_names(requests[0]))
    assert "not approved" in listed.stdout and "ready" not in listed.stdout
    assert approved.code == 0, approved.stderr
    assert "time (stdio): " in approved.stdout and "mcp_server_time" in approved.stdout


def test_an_approved_mcp_json_starts_and_a_changed_one_asks_again(
    repo: Path, zizou_home: Path
) -> None:
    (repo / ".mcp.json").write_text(config_text(time=time_server()))
    assert run_cli(["mcp", "approve", "--yes"], repo, zizou_home).code == 0
    warm = run_cli(["mcp", "list"], repo, zizou_home)
    assert "✓ ready · 2 tools" in warm.stdout
    with LoopbackServer([{"text": "b"}, {"text": "c"}]) as srv:
        after = headless(srv, repo, zizou_home)
        (repo / ".mcp.json").write_text(config_text(time=time_server(), more=time_server()))
        changed = headless(srv, repo, zizou_home)
        requests = srv.chat_requests
    assert after.code == 0 and "were not started" not in after.stderr
    assert "changed since you approved it" in changed.stderr
    names = [{n for n in tool_names(r) if n.startswith("mcp__")} for r in requests]
    assert names == [{"mcp__time__get_current_time", "mcp__time__convert_time"}, set()]


def test_a_server_that_never_starts_holds_up_only_the_startup_wait_and_is_gone_after(
    repo: Path, zizou_home: Path
) -> None:
    """The server never answers its handshake, and zizou would wait for it for ten minutes
    (`connect_timeout_s`): the run waits `startup_wait_s`, says so, goes on without it, and the
    server is ended on the way out."""
    (zizou_home / "config.toml").write_text("[mcp]\nconnect_timeout_s = 600\nstartup_wait_s = 2\n")
    tag = uuid.uuid4().hex
    (zizou_home / "mcp.json").write_text(config_text(stuck=fault("--hang-at-start", "--tag", tag)))
    with LoopbackServer([{"text": "answered at once"}]) as srv:
        result = headless(srv, repo, zizou_home)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert result.json()["result"] == "answered at once"
    assert not any(n.startswith("mcp__stuck") for n in tool_names(requests[0]))
    said = "zizou: the MCP server stuck is not ready after 2 s (`[mcp] startup_wait_s` in "
    assert said in result.stderr and "the run goes on without waiting for it" in result.stderr
    assert not any(tag in cmdline for cmdline in _command_lines())


def test_a_flag_named_file_starts_its_servers_and_a_broken_one_is_said(
    repo: Path, zizou_home: Path, tmp_path: Path
) -> None:
    flagged = tmp_path / "servers.json"
    flagged.write_text(config_text(time=time_server(), nope={"command": "no-such-mcp-server-xyz"}))
    listed = run_cli(["mcp", "list", "--mcp-config", str(flagged)], repo, zizou_home)
    assert listed.code == 0, listed.stderr
    assert "time (flag, stdio)" in listed.stdout and "✓ ready · 2 tools" in listed.stdout
    assert "nope (flag, stdio): no-such-mcp-server-xyz\n  ✗ failed: " in listed.stdout
    script = [
        {
            "tool_calls": [
                call(
                    "mcp__time__convert_time",
                    source_timezone="UTC",
                    time="12:00",
                    target_timezone="Asia/Tokyo",
                )
            ]
        },
        {"text": "noon in Tokyo is later"},
    ]
    with LoopbackServer(script) as srv:
        allow = ["--allow", "mcp__time", "--mcp-config", str(flagged)]
        result = headless(srv, repo, zizou_home, *allow)
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert result.json()["tool_calls"] == [{"name": "mcp__time__convert_time", "ok": True}]
    assert "Asia/Tokyo" in tool_messages(requests[1])[0]


def _command_lines() -> list[str]:
    found: list[str] = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            found.append(path.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return found


def test_a_flood_a_crash_and_a_tool_named_like_ours_end_the_turn_cleanly(
    repo: Path, zizou_home: Path
) -> None:
    (zizou_home / "mcp.json").write_text(config_text(fault=fault()))
    listed = run_cli(["mcp", "list"], repo, zizou_home)
    assert "✓ ready · 8 tools (1 left out" in listed.stdout  # `broken`'s schema is invalid
    script = [
        {"tool_calls": [call("mcp__fault__big", chars=10_000_000)]},
        {"tool_calls": [call("mcp__fault__read_file", path="notes.txt")]},
        {"tool_calls": [call("read_file", path="notes.txt")]},
        {"tool_calls": [call("mcp__fault__crash")]},
        {"tool_calls": [call("mcp__fault__echo", text="again")]},
        {"text": "the server crashed"},
    ]
    with LoopbackServer(script) as srv:
        result = headless(srv, repo, zizou_home, "--allow", "mcp__fault__*")
        requests = srv.chat_requests
    assert result.code == 0, result.stderr
    assert [c["ok"] for c in result.json()["tool_calls"]] == [True, True, True, False, False]
    [flood] = tool_messages(requests[1])
    assert len(flood) < 40_000 and "the result was 10,000,000 characters" in flood
    assert tool_messages(requests[2])[-1] == "the server's read_file of notes.txt"
    assert "second" in tool_messages(requests[3])[-1]  # ours, reading the real file
    crash = tool_messages(requests[4])[-1]
    assert "closed the connection" in crash and "the disk is on fire" in crash
    after = tool_messages(requests[5])[-1]
    assert "the MCP server fault is not running" in after and "/mcp restart fault" in after
    assert "the MCP server fault failed" in result.stderr
    assert "mcp__fault__broken" not in tool_names(requests[0])


def test_an_http_server_is_reached_with_a_header_from_the_environment(
    repo: Path, zizou_home: Path
) -> None:
    port = free_port()
    header = "X-Token: e2e-token-0123456789"
    server = subprocess.Popen(
        [sys.executable, FAULT_SERVER, "--http", str(port), "--require-header", header],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port)
        web = {
            "type": "http",
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"X-Token": "${FAULT_TOKEN}"},
        }
        (zizou_home / "mcp.json").write_text(config_text(web=web))
        token = {"FAULT_TOKEN": "e2e-token-0123456789"}
        listed = run_cli(["mcp", "list"], repo, zizou_home, **token)
        assert "web (user, http)" in listed.stdout and "✓ ready · 8 tools" in listed.stdout
        refused = run_cli(["mcp", "list"], repo, zizou_home, FAULT_TOKEN="wrong")
        assert "✗ failed" in refused.stdout
        script = [{"tool_calls": [call("mcp__web__echo", text="over http")]}, {"text": "ok"}]
        with LoopbackServer(script) as srv:
            result = headless(srv, repo, zizou_home, "--allow", "mcp__web__echo", **token)
            requests = srv.chat_requests
        assert result.code == 0, result.stderr
        assert tool_messages(requests[1]) == ["echo: over http"]
        assert "e2e-token-0123456789" not in (repo / "zizou-debug.log").read_text()
    finally:
        server.kill()
        server.wait()
