"""The workspace through the real `zizou -p` against the loopback server: windows that follow the
code from request to request, stubs for lost anchors, exact replacements, windows kept by `-c`,
and bad input answered as tool errors that change nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

APP = (
    "import os\n\nX = 1\ndef helper(x):\n    return x * 2\n\n\ndef main():\n    print(helper(X))\n"
)


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def run(
    project: Path, home: Path, script: list[dict[str, Any]], *more: str
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        args = ["-p", "work on app.py", "--model", "openai/test-model", "--api-base"]
        args += [srv.base_url, "--output-format", "json", *more]
        result = run_cli(args, project, home)
        return result, srv.chat_requests


def system(request: dict[str, Any]) -> str:
    first = request["messages"][0]
    assert first["role"] == "system"
    content = first["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def workspace(request: dict[str, Any]) -> str:
    text = system(request)
    if "# WORKSPACE" not in text:
        return ""
    return text.split("# WORKSPACE\n\n")[1].split("\n\n# LIVE CONTEXT")[0]


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def test_a_regex_window_follows_its_function_when_lines_are_added_above(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text(APP)
    script = [
        {
            "tool_calls": [
                call("open_in_workspace", path="app.py", window={"regex": r"def helper\(x\):\n.*"})
            ]
        },
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="app.py",
                    old_string="import os\n",
                    new_string="import os\nimport re\nimport sys\nimport json\n",
                )
            ]
        },
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert tool_results(requests[2])[-1].startswith("Replaced 1 occurrence")  # no read_file: seen
    before, after = workspace(requests[1]), workspace(requests[2])
    assert before.startswith("## app.py · w1 · lines 4-5 · /def helper\\(x\\):\\n.*/\n")
    assert "     4\tdef helper(x):\n     5\t    return x * 2" in before
    assert after.startswith("## app.py · w1 · lines 7-8 · /def helper\\(x\\):\\n.*/")
    assert "     7\tdef helper(x):\n     8\t    return x * 2" in after
    # The stable layers are byte-identical at every step of the turn.
    prefixes = {system(r)[: system(r).index("# WORKSPACE")] for r in requests[1:]}
    prefixes |= {system(requests[0])[: system(requests[0]).index("# LIVE CONTEXT")]}
    assert len(prefixes) == 1
    log = (project / "zizou-debug.log").read_text()
    assert "STEP-PLAN 2" in log and "app.py · w1 · lines 4-5 · /def helper" in log
    assert result.json()["workspace"] == [
        {
            "id": "w1",
            "path": "app.py",
            "window": "/def helper\\(x\\):\\n.*/",
            "lines": [7, 8],
            "status": "open",
            "note": "",
        }
    ]


def test_a_line_window_shifts_above_stays_below_and_relocates_after_a_command(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text(APP)
    window = {"start_line": 8, "end_line": 9}
    script = [
        {"tool_calls": [call("open_in_workspace", path="app.py", window=window)]},
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="app.py",
                    old_string="X = 1\n",
                    new_string="X = 1\nY = 2\nZ = 3\n",
                )
            ]
        },
        {
            "tool_calls": [
                call(
                    "edit_file",
                    path="app.py",
                    old_string="    print(helper(X))\n",
                    new_string="    print(helper(X))\n\n\nmain()\n",
                )
            ]
        },
        {"tool_calls": [call("run_bash", command="sed -i '1i # header' app.py")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script, "--allow", "run_bash:sed")
    assert result.code == 0, result.stderr
    shown = [workspace(r).split("\n")[0] for r in requests[1:]]
    assert shown == [
        "## app.py · w1 · lines 8-9",  # as opened
        "## app.py · w1 · lines 10-11",  # two lines added above
        "## app.py · w1 · lines 10-11",  # lines added below
        "## app.py · w1 · lines 11-12",  # a command added a line: relocated by its lines
    ]
    assert "    11\tdef main():\n    12\t    print(helper(X))" in workspace(requests[4])


def test_an_anchor_that_stops_matching_is_a_stub_and_close_removes_it(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text(APP)
    script = [
        {"tool_calls": [call("open_in_workspace", path="app.py", window={"regex": "def helper"})]},
        {
            "tool_calls": [
                call("write_file", path="app.py", content="def renamed(x):\n    return x\n")
            ]
        },
        {"tool_calls": [call("close_in_workspace", path="app.py", window_id="w1")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert workspace(requests[2]) == (
        "## app.py · w1 · /def helper/ · not found: /def helper/ matches nothing; last seen at "
        "lines 4-4"
    )
    assert tool_results(requests[3])[-1] == "Closed w1 (/def helper/) of app.py."
    assert workspace(requests[3]) == ""
    assert result.json()["workspace"] == []


def test_replace_window_on_a_crlf_file_without_a_final_newline_changes_only_its_bytes(
    project: Path, zizou_home: Path
) -> None:
    (project / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\nfour")
    script = [
        {
            "tool_calls": [
                call("open_in_workspace", path="win.txt", window={"start_line": 3, "end_line": 4})
            ]
        },
        {
            "tool_calls": [
                call("replace_window", path="win.txt", window_id="w1", content="THREE\n3b\nFOUR")
            ]
        },
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert (project / "win.txt").read_bytes() == b"one\r\ntwo\r\nTHREE\r\n3b\r\nFOUR"
    assert "     3\tTHREE\n     4\t3b\n     5\tFOUR" in workspace(requests[2])


def test_continue_opens_with_the_windows_of_the_previous_run(
    project: Path, zizou_home: Path
) -> None:
    (project / "app.py").write_text(APP)
    first, _ = run(
        project, zizou_home, [{"text": "ok"}], "--open", "app.py:4-5", "--open", "app.py#/def main/"
    )
    assert first.code == 0, first.stderr
    second, requests = run(project, zizou_home, [{"text": "again"}], "-c")
    assert second.code == 0, second.stderr
    text = workspace(requests[0])
    assert text.startswith("## app.py · w1 · lines 4-5\n     4\tdef helper(x):")
    assert "## app.py · w2 · lines 8-8 · /def main/\n     8\tdef main():" in text


def test_a_bad_open_flag_is_a_usage_error(project: Path, zizou_home: Path) -> None:
    (project / "app.py").write_text(APP)
    result, requests = run(project, zizou_home, [{"text": "never"}], "--open", "app.py#/(x/")
    assert result.code == 2 and requests == []
    assert "--open app.py#/(x/: the regex '(x' does not compile at position 2" in result.stderr


def test_bad_windows_are_tool_errors_that_change_nothing(project: Path, zizou_home: Path) -> None:
    (project / "app.py").write_text(APP)
    (project / "long.txt").write_text("a" * 50_000 + "!\n")
    (project / "blob.bin").write_bytes(b"\x00\x01\x02binary")
    for n in range(4):
        (project / f"f{n}.txt").write_text("".join(f"line {i}\n" for i in range(1, 21)))
    bad = [
        call("open_in_workspace", path="app.py", window={"regex": "def (oops"}),
        call("open_in_workspace", path="long.txt", window={"regex": "(a+)+$"}),
        call("open_in_workspace", path="blob.bin"),
        call("open_in_workspace", path="../x"),
        call("open_in_workspace", path="app.py", window={"regex": "def", "start_line": 2}),
        call("open_in_workspace", path="app.py", window={"regex": "nothing like this"}),
    ]
    fill = [
        call("open_in_workspace", path=f"f{n}.txt", window={"start_line": k, "end_line": k})
        for n in range(4)
        for k in range(1, 9)
    ]
    script = [
        {"tool_calls": bad},
        {"tool_calls": fill},
        {"tool_calls": [call("open_in_workspace", path="app.py")]},
        {"text": "done"},
    ]
    before = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    errors = tool_results(requests[1])
    assert len(errors) == 6 and all(e.startswith("Error: ") for e in errors)
    assert "does not compile at position 9: missing )" in errors[0]
    assert "took longer than 0.2 s" in errors[1]
    assert "looks binary" in errors[2]
    assert "outside" in errors[3] or "escapes" in errors[3] or ".." in errors[3]
    assert "either `regex` alone" in errors[4]
    assert "matches nothing" in errors[5]
    assert workspace(requests[1]) == ""  # none of them opened anything
    assert all(not e.startswith("Error") for e in tool_results(requests[2])[6:])
    [full] = tool_results(requests[3])[-1:]
    assert full.startswith("Error: the workspace already has 32 windows")
    assert re.search(r"least recently used is w1: f0\.txt · w1 · lines 1-1", full)
    after = {p.name: p.read_bytes() for p in project.iterdir() if p.is_file()}
    assert {k: v for k, v in after.items() if k in before} == before
