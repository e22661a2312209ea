"""How many modules each start-up path imports, as budgets: a change that makes `--version`,
`zizou -p` or the app's first frame import more than its budget fails here, and says which of
zizou's own modules the path imports, so the import that brought them can be found and made
lazy. Counts, not seconds: they do not move with the machine's load."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import struct
import subprocess
import sys
import termios
import threading
from pathlib import Path

import pytest
from waiting import scaled

COUNT = (
    "import atexit, json, sys\n"
    "def count():\n"
    "    names = sorted(sys.modules)\n"
    "    sys.stderr.write('\\nMODULES ' + json.dumps([len(names), names]) + '\\n')\n"
    "atexit.register(count)\n"
)
# The app's path ends at its first frame: the real command line starts the app in a terminal,
# and the modules are counted when Textual says the first frame is written (the Ready event),
# before the app goes on to load its controllers and open the session in threads.
# `zizou` alone starts without click; with a flag, click reads the command line first.
FIRST_FRAME = (
    "import sys, zizou.ui.app\n"
    "def first_frame(app):\n"
    "    count()\n"
    "    app.exit(0)\n"
    "zizou.ui.app.ZizouApp.on_ready = first_frame\n"
    "sys.argv = ['zizou']\n"
    "from zizou.launcher import main\n"
    "main()\n"
)
FIRST_FRAME_WITH_A_FLAG = FIRST_FRAME.replace("['zizou']", "['zizou', '--no-debug-log']")
# (what the path runs, its budget: all modules, zizou's own). Measured with a little room;
# lower them when a path gets leaner.
PATHS = {
    "--version": (
        "import sys; sys.argv = ['zizou', '--version']; from zizou.launcher import main; main()",
        (80, 2),
    ),
    "zizou -p": ("import zizou.cli, zizou.headless, zizou.session", (515, 165)),
    "the app's first frame": (FIRST_FRAME, (452, 45)),
    "the app's first frame, given a flag": (FIRST_FRAME_WITH_A_FLAG, (466, 46)),
}
# What the first frame must not wait for: the session and what it is built from.
NOT_BEFORE_THE_FIRST_FRAME = (
    "pydantic",
    "litellm",
    "zizou.contracts",
    "zizou.session",
    "zizou.sessions",
    "zizou.agent",
    "zizou.tools",
    "zizou.checkpoints",
    "zizou.decks",
    "zizou.hooks",
    "zizou.config.options",
    "zizou.ui.controllers",
    "zizou.providers",  # the catalog: key capture needs only the key variables' shape
    "zizou.redact",  # its credential patterns; key capture records values in known_secrets
    "tree_sitter",  # the repo map's parser: Textual's TextArea would load it to highlight
)


def imported(code: str, cwd: Path) -> list[str]:
    """The modules `code` has imported when it counts them (at its end, or at the app's first
    frame), run in a terminal of 120x40 so that the app can start."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(ZIZOU_HOME=str(cwd / "home"), OPENAI_API_KEY="sk-test-budget", TERM="xterm")
    proc = subprocess.Popen(
        [sys.executable, "-c", COUNT + code],
        cwd=cwd,
        env=env,
        stdin=follower,
        stdout=follower,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(follower)
    threading.Thread(target=_drain, args=(leader,), daemon=True).start()
    try:
        _, err = proc.communicate(timeout=scaled(60))
    finally:
        proc.kill()
        os.close(leader)
    line = next(x for x in err.splitlines() if x.startswith("MODULES "))
    total, names = json.loads(line.removeprefix("MODULES "))
    assert total == len(names)
    return list(names)


def _drain(fd: int) -> None:
    """Read what the app draws, so that it never waits on a full terminal."""
    try:
        while os.read(fd, 65536):
            pass
    except OSError:
        return


@pytest.mark.parametrize("path", PATHS)
def test_each_start_up_path_stays_within_its_module_budget(path: str, tmp_path: Path) -> None:
    code, (budget, own_budget) = PATHS[path]
    names = imported(code, tmp_path)
    own = [m for m in names if m.split(".")[0] == "zizou"]
    assert len(names) <= budget and len(own) <= own_budget, (
        f"{path} imports {len(names)} modules (budget {budget}), {len(own)} of zizou's "
        f"(budget {own_budget}): {own}"
    )


def test_the_first_frame_is_drawn_before_the_session_and_its_contracts_are_imported(
    tmp_path: Path,
) -> None:
    names = imported(FIRST_FRAME, tmp_path)
    early = [m for m in names if m.startswith((*NOT_BEFORE_THE_FIRST_FRAME, "click"))]
    assert early == []
    assert "textual.widgets._text_area" in names  # the prompt was drawn by the real app
