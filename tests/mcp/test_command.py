"""`zizou mcp add | add-json | remove | approve`, typed as a Claude Code user types them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_main

from zizou.mcp.config import read_project
from zizou.mcp.trust import approval


@pytest.fixture
def here(project: Path, zizou_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(project)
    return project


def servers(path: Path) -> dict[str, object]:
    return json.loads(path.read_text())["mcpServers"]  # type: ignore[no-any-return]


def test_add_writes_the_projects_file_in_claude_codes_shape(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    added = run_main(capsys, "mcp", "add", "git", "--env", "A=1", "--", "uvx", "mcp-server-git")
    assert added.code == 0, added.stderr
    http = ["mcp", "add", "--transport", "http", "docs", "https://x/mcp", "-H", "X-Key: ${K}"]
    assert run_main(capsys, *http).code == 0
    assert run_main(capsys, "mcp", "add-json", "t", '{"command": "tz", "args": ["-v"]}').code == 0
    assert servers(here / ".mcp.json") == {
        "git": {"command": "uvx", "args": ["mcp-server-git"], "env": {"A": "1"}},
        "docs": {"type": "http", "url": "https://x/mcp", "headers": {"X-Key": "${K}"}},
        "t": {"command": "tz", "args": ["-v"]},
    }


def test_a_file_you_wrote_with_add_stays_approved_but_not_one_you_did_not_approve(
    here: Path, zizou_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(capsys, "mcp", "add", "a", "--", "srv")
    found = read_project(here)
    assert found is not None and approval(found, zizou_home) == "approved"
    (here / ".mcp.json").write_text(json.dumps({"mcpServers": {"evil": {"command": "x"}}}))
    said = run_main(capsys, "mcp", "add", "b", "--", "srv")
    assert "is not approved: read it, then `zizou mcp approve`" in said.stdout
    found = read_project(here)
    assert found is not None and approval(found, zizou_home) == "changed"
    shown = run_main(capsys, "mcp", "approve", "--yes")
    assert "evil (stdio): x" in shown.stdout and "b (stdio): srv" in shown.stdout
    found = read_project(here)
    assert found is not None and approval(found, zizou_home) == "approved"


def test_the_user_scope_and_remove(
    here: Path, zizou_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(capsys, "mcp", "add", "-s", "user", "mine", "--", "srv")
    run_main(capsys, "mcp", "add", "mine", "--", "other")
    assert "mine" in servers(zizou_home / "mcp.json")
    both = run_main(capsys, "mcp", "remove", "mine")
    assert both.code == 2 and "--scope project or user" in both.stderr
    assert run_main(capsys, "mcp", "remove", "mine", "--scope", "user").code == 0
    assert servers(zizou_home / "mcp.json") == {}
    assert run_main(capsys, "mcp", "remove", "mine").code == 0
    assert servers(here / ".mcp.json") == {}


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["add", "a__b", "--", "x"], "must be letters, digits"),
        (["add", "-t", "http", "w", "https://x", "-e", "A=1"], "not a command or --env"),
        (["add", "w", "-H", "X: y", "--", "x"], "--header is for --transport http"),
        (["add", "w", "-e", "novalue", "--", "x"], "write KEY=VALUE"),
        (["add-json", "w", "[1]"], "must be an object"),
        (["add-json", "w", '{"type": "sse", "url": "u"}'], "not SSE"),
        (["approve"], "no .mcp.json with servers to approve"),
    ],
)
def test_mistakes_are_usage_errors_that_name_the_fix(
    here: Path, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    result = run_main(capsys, "mcp", *args)
    assert result.code == 2 and said in result.stderr


def test_approve_without_a_terminal_needs_yes(
    here: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (here / ".mcp.json").write_text(json.dumps({"mcpServers": {"s": {"command": "x"}}}))
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    result = run_main(capsys, "mcp", "approve")
    assert result.code == 2 and "zizou mcp approve --yes" in result.stderr
