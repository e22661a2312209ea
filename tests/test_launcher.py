"""`zizou --version` answers before the command line is imported; `zizou` alone opens the app
without click, with the options click would have given it; everything else reaches click."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zizou import __version__
from zizou.cli import cli
from zizou.start import app_start, flags_from


def test_version_answers_without_importing_click_or_the_cli() -> None:
    code = (
        "import sys; sys.argv = ['zizou', '--version']; "
        "from zizou.launcher import main; main(); "
        "print(sorted(m for m in ('click', 'zizou.cli', 'zizou.config') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [f"zizou, version {__version__}", "[]"]


def test_other_arguments_go_to_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "zizou", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "Usage: zizou" in done.stdout


def test_zizou_alone_starts_the_app_as_click_would_with_no_argument(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    params = cli.make_context("zizou", []).params
    app_only = ("prompt_arg", "prompt", "output_format", "open_files", "state_file", "setup")
    run = {k: v for k, v in params.items() if k not in (*app_only, "reset")}
    more = {"prompt": None, "setup": None, "open_files": ()}
    assert flags_from({}, **more) == flags_from(run, **more)
    plain, through_click = app_start({}, **more), app_start(run, **more)
    assert (plain.root, plain.check_first, plain.prompt, plain.setup, plain.api_base) == (
        through_click.root,
        through_click.check_first,
        through_click.prompt,
        through_click.setup,
        through_click.api_base,
    )
    assert plain.resolve() == through_click.resolve()
