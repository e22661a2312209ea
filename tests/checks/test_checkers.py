"""Checkers: presets only where the project has them, what a project may narrow, commands run
in a process group with a budget, and their output read for the file checked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from zizou.checks.checkers import CheckSettings, checkers_for, narrowed
from zizou.checks.report import Finding, report, split_report
from zizou.checks.run import CheckRun, diagnostics, run_checker
from zizou.checks.service import new_findings


def test_diagnostics_of_the_file_in_both_forms_others_dropped(tmp_path: Path) -> None:
    output = "\n".join(
        [
            "src/app.py:3:8: F401 `os` imported but unused",
            f"{tmp_path}/src/app.py:9: error: Name 'x' is not defined  [name-defined]",
            "src/other.py:1:1: E999 elsewhere",
            "src/app.py(12,5): error TS2304: Cannot find name 'y'.",
            "Found 3 errors.",
            "src/app.py:3:8: F401 `os` imported but unused",
        ]
    )
    assert diagnostics(output, "src/app.py", tmp_path) == [
        Finding(3, 8, "F401 `os` imported but unused"),
        Finding(9, 0, "error: Name 'x' is not defined  [name-defined]"),
        Finding(12, 5, "error TS2304: Cannot find name 'y'."),
    ]


def test_a_preset_needs_the_projects_config_and_its_program(tmp_path: Path) -> None:
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "ruff").write_text("#!/bin/sh\n")
    settings = CheckSettings(presets=("ruff", "mypy", "eslint", "go vet"))
    assert checkers_for(settings, tmp_path, path="") == []  # no configuration of ruff
    (tmp_path / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    [ruff] = checkers_for(settings, tmp_path, path="")
    assert ruff.name == "ruff" and ruff.argv[0] == str(bin_dir / "ruff")
    assert ruff.command("pkg/a.py")[-1] == "pkg/a.py"


def test_commands_name_a_language_and_the_file() -> None:
    with pytest.raises(ValidationError, match="not a language"):
        CheckSettings(commands={"pascal": "fpc {file}"})
    with pytest.raises(ValidationError, match=r"must name \{file\}"):
        CheckSettings(commands={"python": "ruff check ."})


def test_the_project_narrows_and_never_adds(tmp_path: Path) -> None:
    user = CheckSettings(presets=("ruff", "mypy"), budget_s=5, commands={"go": "vet {file}"})
    (tmp_path / ".zizou").mkdir()
    (tmp_path / ".zizou" / "checks.toml").write_text(
        '[checks]\nsyntax = false\nbudget_s = 60\npresets = ["mypy", "eslint"]\n'
        'commands = { python = "evil {file}" }\n'
    )
    settings, warnings = narrowed(user, tmp_path)
    assert settings.syntax is False and settings.budget_s == 5
    assert settings.presets == ("mypy",) and settings.commands == {"go": "vet {file}"}
    assert "a project cannot add commands" in warnings[0]


def test_a_bad_project_file_is_not_used_and_said(tmp_path: Path) -> None:
    (tmp_path / ".zizou").mkdir()
    (tmp_path / ".zizou" / "checks.toml").write_text("[checks]\nwhen = 'sometimes'\n")
    settings, [warning] = narrowed(CheckSettings(), tmp_path)
    assert settings == CheckSettings() and "is not used" in warning and "when" in warning


async def test_a_checker_past_its_budget_is_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    script = (
        f"import os, time; open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    )
    checker = CheckSettings(commands={"python": f'{sys.executable} -c "{script}" {{file}}'})
    [command] = checkers_for(checker, tmp_path)
    run = await run_checker(command, "a.py", tmp_path, None, 0.5)
    assert run.problem is not None and "stopped after 0.5 s" in run.problem
    assert not Path(f"/proc/{pid_file.read_text()}").exists()


def test_only_findings_the_baseline_lacked_are_new() -> None:
    before = b"import os\n\nx = 1\n"
    after = b"import os\nimport sys\n\nx = 1\n"
    base = CheckRun("ruff", (Finding(1, 8, "F401 `os` unused"), Finding(3, 1, "E1 same")))
    run = CheckRun(
        "ruff",
        (
            Finding(1, 8, "F401 `os` unused"),
            Finding(2, 8, "F401 `sys` unused"),
            Finding(4, 1, "E1 same"),
        ),
    )
    assert new_findings(base, run, before, after) == [Finding(2, 8, "F401 `sys` unused")]
    assert new_findings(None, run, before, after) == list(run.findings)


def test_a_report_shows_at_most_five_with_excerpts_and_splits_from_the_result() -> None:
    text = "\n".join(f"line{n}\tx" for n in range(1, 10))
    found = [Finding(n, 6, f"problem {n}") for n in range(1, 8)]
    said = report("New syntax problems", found, text)
    lines = said.splitlines()
    assert lines[0] == "New syntax problems after this change (it was applied):"
    assert lines[1:4] == ["- line 1, column 6: problem 1", "     1 | line1   x", "       |      ^"]
    assert lines[-1] == "... and 2 more problems."
    assert split_report(f"Replaced 1 occurrence.\n\n{said}") == ("Replaced 1 occurrence.", said)
    assert split_report("Replaced 1 occurrence.") == ("Replaced 1 occurrence.", "")


async def test_a_process_the_checker_leaves_behind_neither_hides_its_answer_nor_outlives_it(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "stray"
    command = f"sh -c 'sleep 30 & echo $! > {pid_file}; echo \"a.py:1:1: boom\"' {{file}}"
    [checker] = checkers_for(CheckSettings(commands={"python": command}), tmp_path)
    run = await run_checker(checker, "a.py", tmp_path, None, 5.0)
    assert run.problem is None and [f.message for f in run.findings] == ["boom"]
    stat = Path(f"/proc/{pid_file.read_text().strip()}/stat")
    assert not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z"  # ended


def test_a_fifo_planted_as_pyproject_is_not_waited_on(tmp_path: Path) -> None:
    """Finding out whether a checker is configured reads pyproject.toml without blocking and
    without following a link: a FIFO there is no configuration, never a hang."""
    import os

    from zizou.checks.checkers import PRESETS

    os.mkfifo(tmp_path / "pyproject.toml")
    assert PRESETS["ruff"].configured(tmp_path) is False
