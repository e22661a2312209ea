"""The app draws its first frame before it reads the run's options, yet a mistake on the command
line is still told in the shell, before any screen: a `-C` that is no directory, an `--allow`
rule that names no tool, a session `-r` or `-c` cannot find. A `config.toml` that is wrong is
read once the first frame is up: the app ends at once and says why, with exit code 2."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import cli_env
from waiting import scaled

ALTERNATE_SCREEN = b"\x1b[?1049h"  # what Textual writes first when it takes the terminal


def start_app(args: list[str], cwd: Path, home: Path) -> tuple[int, bytes, str]:
    """`zizou ARGS` in a terminal until it ends: its exit code, what it drew, its stderr."""
    leader, follower = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "zizou", "--no-debug-log", *args],
        cwd=cwd,
        stdin=follower,
        stdout=follower,
        stderr=subprocess.PIPE,
        env=cli_env(home),
    )
    os.close(follower)
    drawn: list[bytes] = []
    reader = threading.Thread(target=_read, args=(leader, drawn), daemon=True)
    reader.start()
    try:
        _, err = proc.communicate(timeout=scaled(60))
    finally:
        proc.kill()
        reader.join(scaled(5))
        os.close(leader)
    return proc.returncode, b"".join(drawn), err.decode()


def _read(fd: int, into: list[bytes]) -> None:
    try:
        while data := os.read(fd, 65536):
            into.append(data)
    except OSError:  # the terminal closed: the process is gone
        return


@pytest.mark.parametrize(
    ("args", "told"),
    [
        (["-C", "missing"], "is not a directory: pass an existing project with -C"),
        (["--allow", "nosuchtool"], "--allow 'nosuchtool': unknown tool 'nosuchtool'"),
        (["-r", "nope"], "no session 'nope' here"),
        (["-c"], "there is no session to continue in this project"),
    ],
    ids=["-C", "--allow", "-r", "-c"],
)
def test_a_mistake_on_the_command_line_is_told_before_any_screen(
    project: Path, zizou_home: Path, args: list[str], told: str
) -> None:
    code, drawn, err = start_app(args, project, zizou_home)
    assert code == 2
    assert told in err and err.startswith("zizou: ")
    assert ALTERNATE_SCREEN not in drawn  # the app never took the terminal


def test_a_wrong_config_toml_ends_the_app_at_once_with_the_reason(
    project: Path, zizou_home: Path
) -> None:
    (zizou_home / "config.toml").write_text('max_steps = "many"\n')
    code, _, err = start_app([], project, zizou_home)
    assert code == 2
    assert "config.toml has invalid settings (max_steps" in err
    assert not (project / ".zizou").exists()  # no session began
