"""The real `zizou -p` process writes zizou-debug.log: every section, mode 0600, rewritten per
message, kept out of git, off with --no-debug-log, and the canary key never in it."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer

from zizou.trace.sections import SECTIONS, parse_headings

CANARY = "sk-canary-e2e-" + "7f3a9c1d5e2b8a4f6c0d9e1b"
LOG = "zizou-debug.log"


def read_call(path: str) -> dict[str, str]:
    return {"name": "read_file", "arguments": json.dumps({"path": path})}


def zizou(project: Path, home: Path, prompt: str, srv: LoopbackServer, *extra: str) -> str:
    args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url, *extra]
    result = run_cli(args, project, home, OPENAI_API_KEY=CANARY)
    assert result.code == 0, result.stderr
    return result.stdout


def test_the_log_audits_the_message_without_the_key(project: Path, zizou_home: Path) -> None:
    (project / "settings.txt").write_text(f"openai_key = {CANARY}\n")
    script = [{"tool_calls": [read_call("settings.txt")]}, {"text": f"It holds {CANARY}."}]
    with LoopbackServer(script) as srv:
        zizou(project, zizou_home, "what is in settings.txt?", srv)
        sent = srv.chat_requests

    log = project / LOG
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    text = log.read_text(encoding="utf-8")
    assert parse_headings(text) == list(enumerate(SECTIONS, 1))
    assert CANARY not in text and CANARY[8:24] not in text
    assert "openai_key = [REDACTED]" in text and "It holds [REDACTED]." in text
    assert sent[1]["messages"][-1]["content"].count(CANARY) == 1  # the model did get the file
    for label in ("STEP-START", "TOOL-CALL", "TOOL-RESULT", "TEXT-DELTA", "STEP-FINISH", "FINISH"):
        assert re.search(rf"^\S+ \S+ {label}\b", text, re.MULTILINE), label
    assert 'model: "openai/test-model"' in text and f'api_base: "{srv.base_url}"' in text
    assert sent[0]["messages"][0]["content"].strip() in text  # the system prompt, whole


def test_each_message_rewrites_the_log(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "first answer"}, {"text": "second answer"}]) as srv:
        zizou(project, zizou_home, "the first message", srv)
        assert "the first message" in (project / LOG).read_text()
        zizou(project, zizou_home, "the second message", srv)
    text = (project / LOG).read_text()
    assert "the second message" in text and "second answer" in text
    assert "the first message" not in text and "first answer" not in text
    assert len(parse_headings(text)) == len(SECTIONS)


def test_no_debug_log_leaves_no_log(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "fine"}]) as srv:
        zizou(project, zizou_home, "hello", srv, "--no-debug-log")
    assert not (project / LOG).exists()


def test_the_config_setting_turns_it_off(project: Path, zizou_home: Path) -> None:
    (zizou_home / "config.toml").write_text("debug_log = false\n")
    with LoopbackServer([{"text": "fine"}]) as srv:
        zizou(project, zizou_home, "hello", srv)
    assert not (project / LOG).exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_in_a_git_repo_the_log_is_never_committed(project: Path, zizou_home: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    with LoopbackServer([{"text": "fine"}]) as srv:
        zizou(project, zizou_home, "hello", srv)
    exclude = (project / ".git" / "info" / "exclude").read_text().splitlines()
    assert LOG in exclude and ".zizou/" in exclude
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert (project / LOG).exists() and status.stdout == ""
