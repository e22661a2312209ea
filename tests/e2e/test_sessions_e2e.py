"""Sessions with the real CLI: continue, resume, and a kill -9 in the middle of a stream."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from conftest import cli_env, run_cli
from loopback import LoopbackServer
from waiting import scaled

from zizou.sessions import SessionStore


def user_messages(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [m["content"] for m in messages if m["role"] == "user"]


def test_continue_sends_the_earlier_turns(project: Path, zizou_home: Path) -> None:
    script = [{"text": "Noted: 42."}, {"text": "It was 42."}]
    with LoopbackServer(script) as srv:
        base = ["--api-base", srv.base_url, "--output-format", "json"]
        first = run_cli(["-p", "remember 42", *base], project, zizou_home)
        second = run_cli(["-p", "what number?", "-c", *base], project, zizou_home)
        requests = srv.chat_requests
    assert first.code == 0 and second.code == 0, second.stderr
    assert first.json()["session_id"] == second.json()["session_id"]
    messages = requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == "Noted: 42."

    listing = run_cli(["sessions", "list"], project, zizou_home)
    assert listing.code == 0
    assert first.json()["session_id"] in listing.stdout and "remember 42" in listing.stdout
    assert "2 turns" in listing.stdout

    resumed = run_cli(["-p", "x", "-r", "nope", *base], project, zizou_home)
    assert resumed.code == 2 and "sessions list" in resumed.stderr


def test_kill_9_mid_stream_leaves_a_session_that_resumes_without_duplicates(
    project: Path, zizou_home: Path
) -> None:
    prompt = "refactor the parser"
    script = [{"text": "Working on it... and more", "stall_s": 60}, {"text": "Done."}]
    with LoopbackServer(script) as srv:
        args = [sys.executable, "-m", "zizou", "-p", prompt, "--api-base", srv.base_url]
        proc = subprocess.Popen(
            args,
            cwd=project,
            env=cli_env(zizou_home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert srv.stalling.wait(60), "the stream never started"  # it has, and it stalls
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=scaled(10))

        store = SessionStore(project)
        session_id = store.active_id()
        assert session_id is not None
        loaded = store.load(session_id)
        assert [m["content"] for m in loaded.wire() if m["role"] == "user"] == [prompt]

        again = run_cli(["-p", prompt, "-c", "--api-base", srv.base_url], project, zizou_home)
        requests = srv.chat_requests
    assert again.code == 0, again.stderr
    assert again.stdout.strip() == "Done."
    assert user_messages(requests[1]) == [prompt]
    lines = store.path(session_id).read_text().splitlines()
    user_lines = [
        line for line in lines if json.loads(line).get("message", {}).get("role") == "user"
    ]
    assert len(user_lines) == 1


def test_continue_from_a_subdirectory_finds_the_projects_session(
    project: Path, zizou_home: Path
) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / "src" / "pkg").mkdir(parents=True)
    script = [{"text": "Noted: 7."}, {"text": "It was 7."}]
    with LoopbackServer(script) as srv:
        base = ["--api-base", srv.base_url, "--output-format", "json"]
        first = run_cli(["-p", "remember 7", *base], project, zizou_home)
        second = run_cli(["-p", "what number?", "-c", *base], project / "src" / "pkg", zizou_home)
        requests = srv.chat_requests
    assert first.code == 0 and second.code == 0, second.stderr
    assert first.json()["session_id"] == second.json()["session_id"]
    assert [m["role"] for m in requests[1]["messages"]][1:] == ["user", "assistant", "user"]
