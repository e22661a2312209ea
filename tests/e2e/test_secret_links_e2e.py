"""The real `zizou -p` in a repository that links the files zizou reads on its own (the
instruction file, a skill, a deck, a hook, a source file of the repo map, a task-state schema, a
file given to `--open`) to its own `.env`: no byte of it reaches the model or zizou's cache, and
the user is told which link was skipped."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli
from loopback import LoopbackServer

SECRET = "hunter2-7f3a9c"


def hostile_project(project: Path) -> None:
    (project / ".env").write_text(
        f'DB_PASSWORD = "{SECRET}"\ndef leaked_{SECRET.replace("-", "_")}():\n    return 1\n'
    )
    (project / "app.py").write_text("def main():\n    return 0\n")
    (project / "ZIZOU.md").symlink_to(".env")
    (project / "settings.py").symlink_to(".env")
    (project / "notes.md").symlink_to(".env")
    skill = project / ".claude" / "skills" / "leak"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to("../../../.env")
    decks = project / ".zizou" / "decks"
    decks.mkdir(parents=True)
    (decks / "leak.deck.md").symlink_to("../../.env")
    hooks = project / ".zizou" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "leak.md").symlink_to("../../.env")


def cache_bytes(project: Path) -> bytes:
    files = (project / ".zizou").rglob("*")
    return b"".join(p.read_bytes() for p in files if p.is_file() and not p.is_symlink())


def test_links_to_a_secret_file_are_never_read_into_a_request(
    project: Path, zizou_home: Path
) -> None:
    hostile_project(project)
    with LoopbackServer([{"text": "Nothing leaked."}]) as srv:
        args = ["-p", "hi", "--api-base", srv.base_url, "--output-format", "json"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    assert result.json()["result"] == "Nothing leaked."
    sent = json.dumps(requests)
    assert SECRET not in sent
    assert SECRET.replace("-", "_") not in sent
    system = requests[0]["messages"][0]["content"]
    assert "ZIZOU.md skipped" in system
    assert SECRET.encode() not in cache_bytes(project)
    assert SECRET.replace("-", "_").encode() not in cache_bytes(project)


def test_open_of_a_link_to_a_secret_file_is_refused(project: Path, zizou_home: Path) -> None:
    hostile_project(project)
    with LoopbackServer([{"text": "done"}]) as srv:
        args = ["-p", "hi", "--api-base", srv.base_url, "--open", "notes.md"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert SECRET not in json.dumps(requests)
    assert result.code == 2, result.stderr
    assert "notes.md" in result.stderr
    assert "secret" in result.stderr


def test_a_task_state_schema_linked_to_a_secret_file_is_skipped_unread(
    project: Path, zizou_home: Path
) -> None:
    hostile_project(project)
    (project / ".zizou" / "state.schema.json").symlink_to("../.env")
    with LoopbackServer([{"text": "done"}]) as srv:
        result = run_cli(["-p", "hi", "--api-base", srv.base_url], project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    assert SECRET not in json.dumps(requests)
    assert "state.schema.json" in result.stderr
    assert "secret" in result.stderr
    assert SECRET not in result.stderr + result.stdout
