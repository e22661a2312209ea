"""Stdio servers run in the command sandbox, from the scrubbed environment plus the variables
their configuration names."""

from __future__ import annotations

import dataclasses
import os
import sys
from pathlib import Path

import pytest
from mcp_harness import FAULT_SERVER, launch, settle, specs

from zizou.mcp.manager import McpServers
from zizou.sandbox import Sandbox, detect, hidden_dirs_for
from zizou.user_dirs import user_config_dir

pytestmark = pytest.mark.usefixtures("sandbox_on")


def sandboxed(root: Path, **servers: dict[str, object]) -> McpServers:
    box = Sandbox(root, detect(), hidden_dirs_for(user_config_dir()))
    manager = McpServers(dataclasses.replace(launch(root, connect_timeout_s=10.0), sandbox=box))
    manager.add(specs(**servers))
    manager.start()
    return manager


def test_a_server_sees_no_secret_but_the_variables_it_is_given(
    project: Path, zizou_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "do-not-leak-0123456789")
    dump = {"command": "sh", "args": ["-c", "env > env.txt"], "env": {"GIVEN": "${HOME}"}}
    manager = sandboxed(project, dump=dump)
    try:
        settle(manager)
    finally:
        manager.close()
    seen = (project / "env.txt").read_text()
    assert "do-not-leak" not in seen and f"GIVEN={os.environ['HOME']}" in seen


def test_a_server_that_writes_outside_the_project_fails_saying_why(
    project: Path, zizou_home: Path
) -> None:
    writes = {"command": "sh", "args": ["-c", "touch /usr/zizou-mcp-probe"]}
    manager = sandboxed(project, writer=writes)
    try:
        [status] = settle(manager)
    finally:
        manager.close()
    assert status.state == "failed"
    assert "Read-only file system" in "\n".join(status.stderr)
    assert "sandbox = false in the [mcp] section" in (status.message or "")
    assert not Path("/usr/zizou-mcp-probe").exists()


def test_a_command_the_sandbox_cannot_find_is_said_plainly(project: Path, zizou_home: Path) -> None:
    manager = sandboxed(project, gone={"command": "no-such-mcp-server-xyz"})
    try:
        [status] = settle(manager)
    finally:
        manager.close()
    assert status.state == "failed"
    assert status.message == (
        "its command was not found; check `command` (and PATH) in its configuration"
    )


def test_a_script_the_command_names_in_tmp_is_readable_but_not_its_neighbours(
    tmp_path: Path, project: Path, zizou_home: Path
) -> None:
    """The sandbox's /tmp is private: a server whose script is in /tmp (outside the project)
    still starts, and the script's neighbours stay hidden."""
    assert str(tmp_path).startswith("/tmp/"), "the test needs a folder under /tmp"
    scripts = tmp_path / "servers"
    scripts.mkdir()
    (scripts / "server.py").write_bytes(Path(FAULT_SERVER).read_bytes())
    (scripts / "neighbour.txt").write_text("private")
    peek = f"test -e {scripts / 'neighbour.txt'} && echo seen > peek.txt; exec python3 -c 1"
    manager = sandboxed(
        project,
        script={"command": sys.executable, "args": [str(scripts / "server.py")]},
        peek={"command": "sh", "args": ["-c", peek, str(scripts / "server.py")]},
    )
    try:
        statuses = {status.name: status for status in settle(manager)}
    finally:
        manager.close()
    assert statuses["script"].state == "ready", statuses["script"].stderr
    assert not (project / "peek.txt").exists()
