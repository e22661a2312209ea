"""Edits checked as they land, through the real `zizou -p` against the loopback server: an edit
that breaks the syntax of a Python, JavaScript or Go file is applied and its result names the
new problem; an old problem elsewhere in the file is not reported again; a configured ruff
reports the unused import an edit added and not the one that was there; a checker that hangs
is stopped at its budget and says so; the project cannot add a command to run."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import CliResult, run_cli
from loopback import LoopbackServer

RUFF = Path(sys.executable).with_name("ruff")  # a dev dependency, beside this Python
APPLIED = "after this change (it was applied)"
RUFF_COMMAND = f"{RUFF} check --no-cache --output-format=concise {{file}}"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": json.dumps(arguments)}]}


def zizou(
    project: Path, home: Path, script: list[dict[str, Any]]
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        args = ["-p", "go", "--model", "openai/test-model", "--api-base", srv.base_url]
        result = run_cli(args, project, home)
        return result, srv.chat_requests


def results(requests: list[dict[str, Any]]) -> list[str]:
    """The tool results the last request holds, in order."""
    return [m["content"] for m in requests[-1]["messages"] if m["role"] == "tool"]


def configure(home: Path, text: str) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(text)


# name: (old content, the line an edit breaks, that line broken, where the new problem is)
BROKEN = {
    "app.py": (
        "def area(w, h):\n    return w * h\n\n\ndef main():\n    print(area(2, 3))\n",
        "    return w * h",
        "    return (w * h",
        "line 2",
    ),
    "app.js": (
        "function area(w, h) {\n  return w * h;\n}\n\nconsole.log(area(2, 3));\n",
        "  return w * h;\n}",
        "  return w * h;\n}}",
        "line 3",
    ),
    "main.go": (
        'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(6)\n}\n',
        "\tfmt.Println(6)\n}",
        "\tfmt.Println(6\n}",
        "line 6",
    ),
}
# An old syntax error far from what the edit changes, per language (at the end of the file).
OLD_ERROR = {
    "app.py": "\n\ndef later(:\n    pass\n",
    "app.js": "\nlet x = ;\n",
    "main.go": "\nfunc x( {\n",
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_an_edit_that_breaks_the_syntax_is_applied_and_names_the_new_problem(
    project: Path, zizou_home: Path, name: str
) -> None:
    text, old, new, where = BROKEN[name]
    (project / name).write_text(text)
    script = [
        {"match": re.escape(APPLIED), "text": "noted"},
        call("read_file", path=name),
        call("edit_file", path=name, old_string=old, new_string=new),
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    edited = results(requests)[-1]
    first, _, report = edited.partition("\n\n")
    assert first.startswith("Replaced 1 occurrence")  # said first: the change was made
    assert report.startswith(f"New syntax problems {APPLIED}:")
    assert f"- {where}" in report and "^" in report
    assert (project / name).read_text() == text.replace(old, new)


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_an_old_syntax_problem_elsewhere_is_not_reported_again(
    project: Path, zizou_home: Path, name: str
) -> None:
    text = BROKEN[name][0] + OLD_ERROR[name]
    (project / name).write_text(text)
    changed = {"app.py": ("w * h", "h * w"), "app.js": ("w * h", "h * w")}
    old, new = changed.get(name, ("Println(6)", "Println(7)"))
    script = [
        {"match": "Replaced 1 occurrence", "text": "noted"},
        call("read_file", path=name),
        call("edit_file", path=name, old_string=old, new_string=new),
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert "syntax problems" not in results(requests)[-1]
    assert (project / name).read_text() == text.replace(old, new)


LINT = "import os\n\n\ndef main():\n    return 1\n"


def test_a_configured_ruff_reports_the_new_unused_import_and_not_the_old_one(
    project: Path, zizou_home: Path
) -> None:
    configure(
        zizou_home,
        f'[checks]\ncommands = {{ python = "{RUFF_COMMAND}" }}\n',
    )
    (project / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (project / "lint.py").write_text(LINT)
    script = [
        {"match": "new problems from python", "text": "I will remove it."},
        call("read_file", path="lint.py"),
        call(
            "edit_file",
            path="lint.py",
            old_string="import os\n",
            new_string="import os\nimport sys\n",
        ),
        {"text": "Added the import."},
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "I will remove it."
    sent = requests[-1]["messages"]
    report = sent[-1]["content"]
    assert sent[-1]["role"] == "user" and sent[-2]["content"] == "Added the import."
    assert "lint.py: new problems from python after your changes:" in report
    assert "`sys` imported but unused" in report and "line 2" in report
    assert "`os` imported but unused" not in report
    assert "the checks found new problems" in result.stderr


def test_after_each_edit_the_report_is_in_the_edits_result(project: Path, zizou_home: Path) -> None:
    configure(
        zizou_home,
        f'[checks]\nwhen = "edit"\ncommands = {{ python = "{RUFF_COMMAND}" }}\n',
    )
    (project / "lint.py").write_text(LINT)
    script = [
        {"match": "new problems from python", "text": "noted"},
        call("read_file", path="lint.py"),
        call(
            "edit_file",
            path="lint.py",
            old_string="import os\n",
            new_string="import os\nimport sys\n",
        ),
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    edited = results(requests)[-1]
    assert edited.startswith("Replaced 1 occurrence")
    assert f"lint.py: new problems from python {APPLIED}:" in edited
    assert "`sys` imported but unused" in edited and "`os` imported" not in edited


def test_a_checker_that_hangs_is_stopped_at_its_budget_and_says_so(
    project: Path, zizou_home: Path
) -> None:
    hang = f"{sys.executable} -c 'import time; time.sleep(60)' {{file}}"
    configure(
        zizou_home, f'[checks]\nwhen = "edit"\nbudget_s = 1\ncommands = {{ python = "{hang}" }}\n'
    )
    (project / "slow.py").write_text("x = 1\n")
    script = [
        {"match": "did not finish", "text": "noted"},
        call("read_file", path="slow.py"),
        call("write_file", path="slow.py", content="x = 2\n"),
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    written = results(requests)[-1]
    assert written.startswith("Overwrote slow.py")
    assert "slow.py: python did not finish" in written and "stopped after 1 s" in written
    assert (project / "slow.py").read_text() == "x = 2\n"


def test_the_project_cannot_add_a_command_and_may_turn_the_syntax_check_off(
    project: Path, zizou_home: Path
) -> None:
    marker = project / "ran"
    (project / ".zizou").mkdir(exist_ok=True)
    (project / ".zizou" / "checks.toml").write_text(
        f'[checks]\nsyntax = false\ncommands = {{ python = "touch {marker} {{file}}" }}\n'
    )
    (project / "app.py").write_text("x = 1\n")
    script = [
        {"match": "Replaced", "text": "noted"},
        call("read_file", path="app.py"),
        call("edit_file", path="app.py", old_string="x = 1", new_string="x = (1"),
    ]
    result, requests = zizou(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert "syntax problems" not in results(requests)[-1]
    assert "a project cannot add commands" in result.stderr
    assert not marker.exists()
