"""How the real `zizou` process starts when it is not in a person's terminal, or is given what
looks like a command: it refuses in one line that says what to run instead, and never draws the
full-screen app into a pipe."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CliResult, cli_env
from waiting import scaled


def start(args: list[str], cwd: Path, home: Path, *, terminal: bool = False) -> CliResult:
    """`zizou ARGS` with stdin and stdout as pipes, or as a pseudo-terminal; stderr a pipe."""
    leader = follower = None
    if terminal:
        leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "zizou", *args],
            cwd=cwd,
            stdin=follower if terminal else subprocess.PIPE,
            stdout=follower if terminal else subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=cli_env(home),
            timeout=scaled(60),
            check=False,
        )
    finally:
        for fd in (leader, follower):
            if fd is not None:
                os.close(fd)
    out = proc.stdout.decode() if proc.stdout else ""
    return CliResult(proc.returncode, out, proc.stderr.decode())


@pytest.mark.parametrize("args", [[], ["explain the build"], ["-c"]], ids=["bare", "message", "-c"])
def test_without_a_terminal_the_app_refuses_in_one_line_naming_zizou_p(
    project: Path, zizou_home: Path, args: list[str]
) -> None:
    result = start(args, project, zizou_home)
    assert result.code == 2
    assert result.stdout == ""  # no escape sequences into the pipe
    [line] = result.stderr.splitlines()
    assert line.startswith("zizou: the app needs a terminal") and "`zizou -p PROMPT`" in line
    assert not (project / ".zizou").exists()


@pytest.mark.parametrize(
    ("word", "hint"), [("acpp", "did you mean `zizou acp`?"), ("mpc", "`zizou mcp`"), ("serve", "")]
)
@pytest.mark.parametrize("terminal", [False, True], ids=["pipes", "terminal"])
def test_a_word_shaped_like_a_command_is_refused_not_sent_as_a_message(
    project: Path, zizou_home: Path, word: str, hint: str, terminal: bool
) -> None:
    result = start([word], project, zizou_home, terminal=terminal)
    assert result.code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith(f"zizou: `{word}` is not a zizou command") and hint in line
    assert f"`zizou -p {word}`" in line and "`zizou --help`" in line
    assert not (project / ".zizou").exists()  # no session began
