"""Reading `.mcp.json` as Claude Code writes it: each server on its own, a bad one left out
with why, `${VAR}` expanded only when a server starts, and the first file to name a server
winning."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zizou.mcp.config import (
    HttpServer,
    MissingVariable,
    StdioServer,
    expand,
    expanded,
    merged,
    parse,
    read_flag,
    read_project,
)


def config(**servers: object) -> bytes:
    return json.dumps({"mcpServers": servers}).encode()


def test_claude_codes_format_reads_as_it_is() -> None:
    found = parse(
        config(
            git={"command": "uvx", "args": ["mcp-server-git"], "env": {"T": "${T}"}},
            docs={"type": "http", "url": "https://x/mcp", "headers": {"A": "b"}},
            legacy={"type": "streamable-http", "url": "https://y/mcp"},
            extra={"command": "srv", "disabled": False, "timeout": 5},
        ),
        Path(".mcp.json"),
        "project",
    )
    assert found.problems == ()
    git, docs, legacy, extra = found.servers
    assert git.config == StdioServer(command="uvx", args=("mcp-server-git",), env={"T": "${T}"})
    assert docs.config == HttpServer(url="https://x/mcp", headers={"A": "b"})
    assert legacy.transport == "http" and extra.describe() == "srv"
    assert git.describe() == "uvx mcp-server-git"


@pytest.mark.parametrize(
    ("name", "entry", "why"),
    [
        ("a__b", {"command": "x"}, "its name must be"),
        ("bad name", {"command": "x"}, "its name must be"),
        ("old", {"type": "sse", "url": "https://x"}, "not SSE"),
        ("nothing", {"args": ["x"]}, 'give "command"'),
        ("empty", {"command": ""}, "command"),
        ("web", {"type": "http"}, "url"),
        ("odd", [1, 2], "not an object"),
    ],
)
def test_a_bad_server_is_left_out_and_the_others_kept(name: str, entry: object, why: str) -> None:
    found = parse(config(good={"command": "ok"}, **{name: entry}), Path("f.json"), "user")
    assert [s.name for s in found.servers] == ["good"]
    [problem] = found.problems
    assert f"the server {name!r} is left out" in problem and why in problem


@pytest.mark.parametrize("data", [b"{not json", b"[]", b'{"servers": {}}'])
def test_a_file_that_is_no_configuration_has_one_problem(data: bytes) -> None:
    found = parse(data, Path("f.json"), "project")
    assert found.servers == () and len(found.problems) == 1


def test_variables_expand_with_defaults_and_a_missing_one_names_the_fix() -> None:
    env = {"TOKEN": "abc", "EMPTY": ""}
    assert expand("Bearer ${TOKEN}", env) == "Bearer abc"
    assert expand("${MISSING:-fallback}/${EMPTY:-x}", env) == "fallback/x"
    assert expand("$TOKEN ${TOKEN}", env) == "$TOKEN abc"  # only the braced form
    with pytest.raises(MissingVariable, match=r"\$\{NOPE\}, which is not set: export NOPE"):
        expand("${NOPE}", env)
    http = HttpServer(url="https://${HOST}/mcp", headers={"X": "${TOKEN}"})
    assert expanded(http, {"HOST": "h", "TOKEN": "t"}) == HttpServer(
        url="https://h/mcp", headers={"X": "t"}
    )


def test_the_first_file_to_name_a_server_wins_and_the_other_is_said() -> None:
    flag = parse(config(git={"command": "mine"}), Path("flag.json"), "flag")
    project = parse(config(git={"command": "theirs"}, b={"command": "b"}), Path("p"), "project")
    user = parse(config(c={"command": "c"}), Path("u"), "user")
    specs, problems = merged([user, project, flag])
    assert [(s.name, s.describe()) for s in specs] == [("git", "mine"), ("b", "b"), ("c", "c")]
    assert problems == ["the server 'git' of p is left out: flag.json names one too, and it wins"]


def test_the_projects_file_is_never_read_through_a_symlink(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_bytes(config(x={"command": "x"}))
    root = tmp_path / "project"
    root.mkdir()
    (root / ".mcp.json").symlink_to(outside)
    found = read_project(root)
    assert found is not None and found.servers == ()
    assert "is skipped" in found.problems[0]


def test_a_flag_file_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"--mcp-config .*cannot be read"):
        read_flag(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ValueError, match="is not JSON"):
        read_flag(tmp_path / "bad.json")
