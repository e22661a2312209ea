"""Undo takes back only what zizou's commands changed, through the real `zizou -p` and `zizou
undo` processes against the loopback server.

The model's command waits, while it runs, for a change made outside it (the test edits a file
as a user's editor would, or another `zizou -p` makes one); the test waits for the command's
process before it makes that change. In the sandbox the command runs in a copy-on-write layer
of its own, so undo removes the command's file and keeps the other change; without a layer
(`--sandbox off`) undo cannot tell whose a change is, and refuses, naming each file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliResult, cli_env, run_cli
from loopback import LoopbackServer
from waiting import running_process, scaled, unique_sleep, wait_until

WAIT_FOR_EDIT = "until grep -q edited notes.txt; do sleep 0.05; done"
USER_EDIT = f"echo made > made.txt; {WAIT_FOR_EDIT}; echo command done"


def bash_call(command: str, **match: str) -> dict[str, object]:
    call = {"name": "run_bash", "arguments": json.dumps({"command": command, "timeout_s": 90})}
    return {**match, "tool_calls": [call]}


def start(
    prompt: str, srv: LoopbackServer, project: Path, home: Path, *extra: str
) -> subprocess.Popen[str]:
    args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url, "--yes"]
    return subprocess.Popen(
        [sys.executable, "-m", "zizou", *args, "--output-format", "json", *extra],
        cwd=project,
        env=cli_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> CliResult:
    try:
        stdout, stderr = proc.communicate(timeout=scaled(90))
    finally:
        proc.kill()
    return CliResult(proc.returncode, stdout, stderr)


def running(marker: str) -> bool:
    """Whether the model's command holding `marker` runs."""
    return running_process(marker.encode()) is not None


def run_while_the_user_edits(
    project: Path, home: Path, command: str, *extra: str
) -> tuple[CliResult, LoopbackServer]:
    """`zizou -p` runs `command`; once it runs, the test appends to notes.txt in place."""
    (project / "notes.txt").write_text("my notes\n")
    marker = f": {project}"  # this test's command, whatever else runs on the machine
    script = [bash_call(f"{marker}; {command}"), {"text": "done"}]
    with LoopbackServer(script) as srv:
        proc = start("run the checks", srv, project, home, *extra)
        try:
            wait_until(lambda: running(marker), "the model's command to run", 60)
            with (project / "notes.txt").open("a") as notes:
                notes.write("edited by me\n")
        finally:
            ran = finish(proc)
    assert ran.code == 0, ran.stderr
    return ran, srv


@pytest.mark.usefixtures("sandbox_on")
def test_undo_keeps_an_edit_made_while_the_command_ran_and_removes_its_file(
    project: Path, zizou_home: Path
) -> None:
    run_while_the_user_edits(project, zizou_home, USER_EDIT)
    assert (project / "made.txt").read_text() == "made\n"

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert "deleted       made.txt" in undone.stdout, undone.stdout
    assert "notes.txt" not in undone.stdout
    assert not (project / "made.txt").exists()
    assert (project / "notes.txt").read_text() == "my notes\nedited by me\n"


@pytest.mark.usefixtures("sandbox_on")
def test_a_file_both_changed_keeps_the_users_version_and_the_command_hears_of_it(
    project: Path, zizou_home: Path
) -> None:
    command = f"{WAIT_FOR_EDIT}; echo from the command >> notes.txt"
    _, srv = run_while_the_user_edits(project, zizou_home, command)
    assert (project / "notes.txt").read_text() == "my notes\nedited by me\n"
    [aside] = (project / ".zizou" / "conflicts").glob("*/notes.txt")
    assert aside.read_text() == "my notes\nedited by me\nfrom the command\n"
    told = json.dumps(srv.chat_requests[-1])
    assert "conflict: notes.txt was changed outside the command while it ran" in told
    assert aside.relative_to(project).as_posix() in told

    undone = run_cli(["undo"], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert (project / "notes.txt").read_text() == "my notes\nedited by me\n"


@pytest.mark.usefixtures("sandbox_on")
def test_two_runs_at_once_undo_only_their_own_files(project: Path, zizou_home: Path) -> None:
    """The first run's command sleeps until the second run made its file; then the test ends
    that sleep (a command in a layer may not see a file made outside it meanwhile)."""
    held, holding = unique_sleep(3600)  # ended by the test, by its pid
    alpha = f"echo a > alpha.txt; {held}; echo alpha done"
    script = [
        bash_call(alpha, match="run alpha"),
        bash_call("echo b > beta.txt; echo beta done", match="run beta"),
        {"match": "alpha done", "text": "ok"},
        {"match": "beta done", "text": "ok"},
    ]
    with LoopbackServer(script) as srv:
        first = start("run alpha", srv, project, zizou_home)
        try:
            wait_until(lambda: running_process(holding), "the first run's command", 60)
            second = finish(start("run beta", srv, project, zizou_home))
            os.kill(running_process(holding) or 0, signal.SIGTERM)
        finally:
            ran = finish(first)
    assert second.code == 0 and ran.code == 0, (second.stderr, ran.stderr)
    assert (project / "alpha.txt").exists() and (project / "beta.txt").exists()

    undone = run_cli(["undo", "--session", ran.json()["session_id"]], project, zizou_home)
    assert undone.code == 0, undone.stderr
    assert not (project / "alpha.txt").exists()
    assert (project / "beta.txt").read_text() == "b\n"


def test_without_a_layer_undo_asks_naming_each_file_it_cannot_attribute(
    project: Path, zizou_home: Path
) -> None:
    run_while_the_user_edits(project, zizou_home, USER_EDIT, "--sandbox", "off")

    refused = run_cli(["undo"], project, zizou_home)
    assert refused.code == 2, refused.stdout
    said = " ".join(refused.stderr.split())
    assert "notes.txt (it changed while a command ran, but maybe not by the command" in said
    assert "made.txt (it changed while a command ran" in said
    assert "--force" in said
    assert (project / "notes.txt").read_text() == "my notes\nedited by me\n"
    assert (project / "made.txt").exists()

    shown = run_cli(["undo", "--dry-run"], project, zizou_home)
    assert "maybe not by the command" in shown.stdout, shown.stdout


@pytest.mark.usefixtures("sandbox_on")
def test_what_a_command_did_before_zizou_was_killed_reaches_the_project_at_the_next_start(
    project: Path, zizou_home: Path
) -> None:
    held, holding = unique_sleep(3600)
    with LoopbackServer([bash_call(f"echo made > made.txt; {held}")]) as srv:
        proc = start("make it", srv, project, zizou_home)
        try:
            wait_until(lambda: running_process(holding), "the model's command", 60)
            proc.kill()  # kill -9: zizou applies nothing; the sandbox dies with it
            proc.wait(timeout=scaled(30))
            wait_until(lambda: not running_process(holding), "the sandbox to end with zizou")
        finally:
            proc.kill()
    assert not (project / "made.txt").exists()  # still in the command's layer

    with LoopbackServer([{"text": "hello"}]) as srv:
        args = ["-p", "hi", "--model", "openai/test-model", "--api-base", srv.base_url]
        again = run_cli(args, project, zizou_home)
    assert again.code == 0, again.stderr
    assert (project / "made.txt").read_text() == "made\n"
