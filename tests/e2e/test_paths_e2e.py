"""The real `zizou -p` in a repository prepared to lead a hostile model out of the root:
`loop -> loop`, `lnk -> ../outside`, AGENTS.md and `.zizou` linked outside. Nothing outside is
read into a request or written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from loopback import LoopbackServer

SECRET = "OUTSIDE-SECRET-7d1f"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes() for p in directory.rglob("*") if p.is_file()
    }


def test_loop_then_link_out_is_refused_and_the_outside_is_untouched(
    tmp_path: Path, project: Path, zizou_home: Path
) -> None:
    outside = tmp_path / "outside"
    (outside / "zizou-dir").mkdir(parents=True)
    (outside / "secret").write_text(SECRET + "\n")
    (outside / "agents.md").write_text(SECRET + " instructions\n")
    (project / "loop").symlink_to("loop")
    (project / "lnk").symlink_to("../outside")
    (project / "AGENTS.md").symlink_to(outside / "agents.md")
    (project / ".zizou").symlink_to(outside / "zizou-dir", target_is_directory=True)
    before = snapshot(outside)
    script = [
        {
            "tool_calls": [
                call("read_file", path="loop/../lnk/secret"),
                call("write_file", path="loop/../lnk/pwned", content="pwned\n"),
            ]
        },
        {"text": "Both were refused."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "read it", "--api-base", srv.base_url, "--output-format", "json", "--yes"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    out = result.json()
    assert out["result"] == "Both were refused."
    assert [c["ok"] for c in out["tool_calls"]] == [False, False]
    replies = [m["content"] for m in requests[1]["messages"] if m["role"] == "tool"]
    assert all("symlink loop at loop/" in reply for reply in replies), replies
    assert SECRET not in json.dumps(requests)
    assert "AGENTS.md skipped" in requests[0]["messages"][0]["content"]
    assert snapshot(outside) == before
    assert list((outside / "zizou-dir").iterdir()) == []


def test_a_path_thousands_of_characters_long_is_refused_and_nothing_is_made(
    project: Path, zizou_home: Path
) -> None:
    deep = "d/" * 2000 + "f.txt"  # 4,005 characters: 2,000 directories
    long = "x" * 300 + "/f.txt"  # a name past NAME_MAX
    script = [
        {
            "tool_calls": [
                call("write_file", path=deep, content="deep\n"),
                call("write_file", path=long, content="long\n"),
                call("write_file", path="d/" * 3000, content="past PATH_MAX\n"),
            ]
        },
        {"text": "All three were refused."},
    ]
    with LoopbackServer(script) as srv:
        args = ["-p", "write them", "--api-base", srv.base_url, "--output-format", "json", "--yes"]
        result = run_cli(args, project, zizou_home)
        requests = srv.chat_requests

    assert result.code == 0, result.stderr
    assert [c["ok"] for c in result.json()["tool_calls"]] == [False, False, False]
    deep_reply, long_reply, past_reply = [
        m["content"] for m in requests[1]["messages"] if m["role"] == "tool"
    ]
    assert "2,001 levels deep; zizou uses paths at most 64 levels" in deep_reply
    assert "the system takes names of at most 255 bytes" in long_reply
    assert "the system takes paths of at most 4,095 bytes" in past_reply
    assert len(deep_reply) < 1000  # the path is quoted cut, not whole
    assert sorted(p.name for p in project.iterdir()) == [".zizou", "zizou-debug.log"]
