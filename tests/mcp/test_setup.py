"""Which servers a session starts: the project's only once its `.mcp.json` is approved as it
is, asked again once it changes; the user's own and the flag-named files at once."""

from __future__ import annotations

from pathlib import Path

from mcp_harness import config_text, launch, settle

from zizou.mcp.config import ConfigFile, read_project
from zizou.mcp.setup import McpSetup, open_servers
from zizou.mcp.trust import approval, describe


def states(setup: McpSetup) -> dict[str, str]:
    return {s.name: s.state for s in setup.servers.statuses()}


def test_a_projects_servers_wait_for_approval_and_a_change_asks_again(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (root / ".mcp.json").write_text(config_text(git={"command": "true"}))
    (home / "mcp.json").write_text(config_text(mine={"command": "true"}))

    setup = open_servers(root, home, (), launch(root))
    assert states(setup) == {"git": "unapproved", "mine": "starting"}
    assert setup.waiting is not None and setup.state == "unapproved"
    [warning] = setup.warnings
    assert "(git) were not started" in warning and "zizou mcp approve" in warning
    assert "git (stdio): true" in describe(setup.waiting, setup.state)

    assert setup.approve_waiting(home) == ["git"]
    settle(setup.servers)
    setup.servers.close()
    assert approval(_file(root), home) == "approved"
    again = open_servers(root, home, (), launch(root))
    assert again.waiting is None and states(again)["git"] == "starting"

    (root / ".mcp.json").write_text(config_text(git={"command": "true", "args": ["--x"]}))
    changed = open_servers(root, home, (), launch(root))
    assert states(changed)["git"] == "unapproved" and changed.state == "changed"
    assert "changed since you approved it" in changed.warnings[0]


def test_naming_the_projects_file_on_the_command_line_approves_it_for_the_run(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (root / ".mcp.json").write_text(config_text(git={"command": "true"}))
    setup = open_servers(root, home, (root / ".mcp.json",), launch(root))
    assert states(setup) == {"git": "starting"} and setup.waiting is None
    assert setup.warnings == []
    assert approval(_file(root), home) == "unapproved"  # nothing was remembered


def _file(root: Path) -> ConfigFile:
    found = read_project(root)
    assert found is not None
    return found
