"""`zizou --version` answers before the command line is imported; everything else reaches it."""

from __future__ import annotations

import subprocess
import sys

from zizou import __version__


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
