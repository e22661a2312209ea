"""The real `zizou` TUI in a real terminal (tmux) against the loopback server: type a prompt,
approve the command with `y`, and read the answer back from the screen."""

from __future__ import annotations

import json
import os
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import run_cli
from loopback import LoopbackServer
from waiting import scaled

from zizou.ui.screens.hook_trust import HookTrustScreen

pytestmark = pytest.mark.skipif(
    shutil.which("tmux") is None, reason="tmux is not installed (CI installs it in .ci/run)"
)


class Tmux:
    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.socket = f"zizou-test-{name}"
        self.env = env

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args],
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
            timeout=scaled(10),
        )
        return done.stdout

    def screen(self) -> str:
        """The pane's text; empty once the program has quit and its session is gone."""
        try:
            return self.run("capture-pane", "-p", "-t", "main")
        except subprocess.CalledProcessError:
            return ""

    def wait_for(self, check: Callable[[str], bool], what: str, limit_s: float = 60) -> str:
        deadline = time.monotonic() + scaled(limit_s)
        while time.monotonic() < deadline:
            text = self.screen()
            if check(text):
                return text
            time.sleep(0.1)
        raise AssertionError(f"the screen never showed {what}:\n{self.screen()}")


@pytest.fixture
def tmux(zizou_home: Path) -> Iterator[Tmux]:
    # Keys are the test's own; COLUMNS and LINES (pytest-xdist sets 80x24) are the pane's.
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith("_API_KEY") and k not in ("COLUMNS", "LINES")
    }
    env.update(ZIZOU_HOME=str(zizou_home), OPENAI_API_KEY="sk-test", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    session = Tmux(f"{os.getpid()}-{secrets.token_hex(3)}", env)  # one server per test
    yield session
    subprocess.run(["tmux", "-L", session.socket, "kill-server"], capture_output=True, check=False)


@pytest.fixture
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A path short enough for the approval dialog to show whole, even under a parallel
    worker's longer temporary directory (the dialog's width is capped, not the terminal's)."""
    root = tmp_path_factory.mktemp("tui") / "project"
    root.mkdir()
    return root


def test_prompt_approve_and_read_the_answer(tmux: Tmux, project: Path) -> None:
    command = {"command": "touch approved.txt"}
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(command)}]},
        {"text": "Done: **approved.txt** is there."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project)]
        # Wide enough for the dialog's working directory, however long the temp path is.
        tmux.run("new-session", "-d", "-s", "main", "-x", "200", "-y", "30", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "make the file")
        tmux.run("send-keys", "-t", "main", "Enter")
        dialog = tmux.wait_for(lambda s: "Run this command?" in s, "the approval dialog")
        assert "touch approved.txt" in dialog and str(project) in dialog
        tmux.run("send-keys", "-t", "main", "y")
        answer = tmux.wait_for(lambda s: "is there." in s, "the answer")
        assert "Done: approved.txt is there." in answer
        assert "■ run_bash · touch approved.txt" in answer
        assert (project / "approved.txt").exists()
        requests = srv.chat_requests
        assert requests[0]["messages"][-1] == {"role": "user", "content": "make the file"}
        tmux.run("send-keys", "-t", "main", "-l", "/exit")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Ask zizou" not in s, "the app closing", limit_s=20)


def test_a_background_job_is_listed_and_gone_once_the_app_quits(tmux: Tmux, project: Path) -> None:
    command = {"command": "echo serving; sleep 900", "background": True}
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(command)}]},
        {"text": "The server is up."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url, "--yes"]
        argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
        shell = f"{shlex.join(argv)}; echo QUIT-DONE; sleep 60"  # the pane stays to be read
        tmux.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", shell)
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "start the server")
        tmux.run("send-keys", "-t", "main", "Enter")
        row = tmux.wait_for(lambda s: "The server is up." in s, "the answer")
        assert "job c1: running in the background" in row
        tmux.run("send-keys", "-t", "main", "-l", "/jobs")
        tmux.run("send-keys", "-t", "main", "Enter")
        listed = tmux.wait_for(lambda s: "Background jobs" in s, "the list of jobs")
        assert "c1 · running for" in listed and "serving" in listed
        assert _in(project), "the job is not running"
        tmux.run("send-keys", "-t", "main", "C-c")
        tmux.run("send-keys", "-t", "main", "C-c")
        gone = tmux.wait_for(lambda s: "QUIT-DONE" in s, "the app quitting", limit_s=30)
        assert "stopped 1 background job on exit: c1 (echo serving; sleep 900)" in gone
    assert _in(project) == []


def _background_job_running(tmux: Tmux, project: Path, srv: LoopbackServer) -> int:
    """zizou in the pane, unsandboxed (nothing but zizou itself ends its jobs), having started a
    background job; zizou's pid."""
    argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url, "--yes"]
    argv += ["--model", "openai/test-model", "-C", str(project), "--sandbox", "off"]
    shell = f"{shlex.join(argv)}; echo QUIT-DONE $?; sleep 60"
    tmux.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", shell)
    tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
    tmux.run("send-keys", "-t", "main", "-l", "start it")
    tmux.run("send-keys", "-t", "main", "Enter")
    tmux.wait_for(lambda s: "It runs." in s, "the answer")
    assert _in(project), "the job is not running"
    shell_pid = tmux.run("display", "-p", "-t", "main", "#{pane_pid}").strip()
    found = subprocess.run(["pgrep", "-P", shell_pid], capture_output=True, text=True, check=True)
    return int(found.stdout.split()[0])


JOB_SCRIPT = [
    {
        "tool_calls": [
            {"name": "run_bash", "arguments": '{"command": "sleep 900", "background": true}'}
        ]
    },
    {"text": "It runs."},
]


def test_sigterm_quits_as_ctrl_c_does_and_leaves_no_job_behind(tmux: Tmux, project: Path) -> None:
    with LoopbackServer(JOB_SCRIPT) as srv:
        os.kill(_background_job_running(tmux, project, srv), signal.SIGTERM)
        gone = tmux.wait_for(lambda s: "QUIT-DONE" in s, "the app quitting", limit_s=30)
        assert f"QUIT-DONE {128 + signal.SIGTERM}" in gone
        assert "stopped 1 background job on exit: c1 (sleep 900)" in gone
        assert "Ask zizou" not in gone  # the app's screen is gone: the terminal was put back
    assert _in(project) == []


def test_a_closed_terminal_ends_zizou_and_its_jobs(tmux: Tmux, project: Path) -> None:
    """The terminal goes away (its tmux server is killed: SIGHUP, and no terminal to restore):
    zizou ends at once, and so does its job."""
    with LoopbackServer(JOB_SCRIPT) as srv:
        pid = _background_job_running(tmux, project, srv)
        tmux.run("kill-server")
        deadline = time.monotonic() + scaled(20)
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), "zizou outlived its terminal"
    assert _in(project) == []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _in(project: Path) -> list[str]:
    """The live processes working in `project` (zizou's own works elsewhere: `-C`)."""
    real, found = os.path.realpath(project), []
    for entry in Path("/proc").iterdir():
        try:
            cwd = os.readlink(entry / "cwd") if entry.name.isdigit() else ""
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] if cwd else "Z"
        except OSError:
            continue
        if state != "Z" and (cwd == real or cwd.startswith(real + os.sep)):
            found.append(entry.name)
    return found


def test_a_message_typed_before_the_first_frame_is_sent(tmux: Tmux, project: Path) -> None:
    """Keys typed while the app starts (before it has drawn anything) land in the prompt, and
    Enter sends them once the session is open."""
    with LoopbackServer([{"text": "Heard you early."}]) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", shlex.join(argv))
        tmux.run("send-keys", "-t", "main", "-l", "typed before the first frame")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Heard you early." in s, "the answer")
        sent = srv.chat_requests[0]["messages"][-1]
        assert sent == {"role": "user", "content": "typed before the first frame"}


def test_the_stylesheets_parsed_at_a_start_are_kept_for_the_next(
    tmux: Tmux, project: Path, zizou_home: Path
) -> None:
    """Once the first frame is up, the app keeps the stylesheets it parsed in the user's cache;
    a second start made the same way reads them back and finds nothing new to keep."""
    argv = [sys.executable, "-m", "zizou", "--api-base", "http://127.0.0.1:9/v1"]
    argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
    styles = zizou_home / "cache" / "styles"
    seen: list[tuple[str, int, bytes]] = []
    for _ in range(2):
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.wait_for(lambda _: any(styles.glob("*.pickle")), "the parsed stylesheets kept")
        tmux.run("send-keys", "-t", "main", "-l", "/exit")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda _: not _session_open(tmux), "the app closing", limit_s=20)
        [kept] = styles.glob("*.pickle")
        seen.append((kept.name, kept.stat().st_mtime_ns, kept.read_bytes()))
        assert kept.stat().st_mode & 0o077 == 0
    assert seen[1] == seen[0]


def _session_open(tmux: Tmux) -> bool:
    try:
        tmux.run("has-session", "-t", "main")
    except subprocess.CalledProcessError:
        return False
    return True


def test_slash_commands_complete_from_the_first_frame_on(tmux: Tmux, project: Path) -> None:
    """The commands' handlers load in a thread once the first frame is up; `/` typed sooner
    still completes to every command, and the command runs."""
    argv = [sys.executable, "-m", "zizou", "--api-base", "http://127.0.0.1:9/v1"]
    argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
    tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "30", shlex.join(argv))
    tmux.run("send-keys", "-t", "main", "-l", "/he")
    tmux.wait_for(lambda s: "/help  show the commands" in s, "/help offered")
    tmux.run("send-keys", "-t", "main", "-l", "lp")
    tmux.run("send-keys", "-t", "main", "Enter")
    tmux.wait_for(lambda s: "Ctrl+C twice" in s, "the commands and keys")


def test_first_run_without_a_key_opens_the_key_wizard(
    tmux: Tmux, project: Path, zizou_home: Path
) -> None:
    """No key and no OS keyring (a headless box): the wizard opens by itself, says there is no
    keyring, and keeps the key in a 0600 file when the user picks that. The key cannot be
    checked offline, so it is kept unchecked with Ctrl+S."""
    tmux.env.pop("OPENAI_API_KEY", None)
    tmux.env["PYTHON_KEYRING_BACKEND"] = "keyring.backends.fail.Keyring"
    argv = [sys.executable, "-m", "zizou", "--model", "openai/gpt-4o", "-C", str(project)]
    tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "34", shlex.join(argv))
    wizard = tmux.wait_for(lambda s: "no OS keyring" in s, "the key wizard")
    assert "No key for openai" in wizard and "no OS keyring is available" in wizard
    tmux.run("send-keys", "-t", "main", "Enter")
    tmux.wait_for(lambda s: "Paste your OpenAI API key" in s, "the key field")
    tmux.run("send-keys", "-t", "main", "-l", "sk-e2e-0123456789abcdef")
    screen = tmux.wait_for(lambda s: "•" * 10 in s, "the masked key")
    assert "sk-e2e" not in screen
    tmux.run("send-keys", "-t", "main", "Enter")
    tmux.wait_for(lambda s: "Ctrl+S keeps it unchecked" in s, "the failed check", limit_s=30)
    tmux.run("send-keys", "-t", "main", "C-s")
    tmux.wait_for(lambda s: "file only you can read" in s, "the file store offer")
    tmux.run("send-keys", "-t", "main", "Enter")
    done = tmux.wait_for(lambda s: "Saved the key for OpenAI" in s, "the saved key")
    assert "Model: openai/gpt-4o" in done
    keys = zizou_home / "keys.toml"
    assert keys.stat().st_mode & 0o777 == 0o600
    assert 'openai = "sk-e2e-0123456789abcdef"' in keys.read_text()


def test_command_output_quit_and_continue_from_a_subdirectory(tmux: Tmux, project: Path) -> None:
    """A command's last lines show under its row; on quit zizou says how to come back, and
    `zizou -c` from a subdirectory brings the same conversation back."""
    (project / "sub").mkdir()
    command = {"command": "seq 1 12"}
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(command)}]},
        {"text": "Counted to twelve."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "--no-debug-log"]
        shell = f"{shlex.join(argv)}; sleep 30"  # the pane stays to show what was printed
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "40", "-c", str(project))
        tmux.run("send-keys", "-t", "main", "-l", f"exec sh -c {shlex.quote(shell)}")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "count")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Run this command?" in s, "the approval dialog")
        tmux.run("send-keys", "-t", "main", "y")
        live = tmux.wait_for(lambda s: "Counted to twelve." in s, "the answer")
        assert "⋮ 7 earlier lines · click or ctrl+o to expand" in live
        shown = [line.strip() for line in live.splitlines()]
        assert "│ 12" in shown and "│ 8" in shown and "│ 7" not in shown
        tmux.run("send-keys", "-t", "main", "C-c")
        tmux.run("send-keys", "-t", "main", "C-c")
        bye = tmux.wait_for(lambda s: "Continue it with" in s, "how to come back", limit_s=20)
        hint = next(line for line in bye.splitlines() if "Continue it with" in line)
        assert hint.startswith("Session ") and "Continue it with: zizou -c  (or zizou -r " in hint
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url, "-c"]
        argv += ["--model", "openai/test-model", "--no-debug-log"]
        # A fresh shell in the same pane: killing the last session would end the tmux server,
        # and a new session started as it goes away can fail.
        tmux.run("respawn-pane", "-k", "-t", "main", "-c", str(project))
        tmux.run("send-keys", "-t", "main", "-l", f"cd sub && exec {shlex.join(argv)}")
        tmux.run("send-keys", "-t", "main", "Enter")
        again = tmux.wait_for(lambda s: "Resumed session" in s, "the resumed session")
        assert "Counted to twelve." in again and "⋮ 7 earlier lines" in again


def _text_of(content: object) -> str:
    """A message's content as text: a string, or the text of its blocks."""
    if isinstance(content, str):
        return content
    assert isinstance(content, list)
    return "".join(block.get("text", "") for block in content)


def test_add_puts_a_window_of_lines_in_the_system_prompt(tmux: Tmux, project: Path) -> None:
    """`/add file.py:2-3` opens a window; the next request's system prompt shows those lines,
    numbered, in its WORKSPACE section, and `/workspace` lists the window where it was shown."""
    (project / "file.py").write_text("one = 1\ntwo = 2\nthree = 3\nfour = 4\n")
    with LoopbackServer([{"text": "I see two and three."}]) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
        tmux.run("new-session", "-d", "-s", "main", "-x", "160", "-y", "40", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "/add file.py:2-3")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Opened w1: file.py lines 2-3." in s, "the window opened")
        tmux.run("send-keys", "-t", "main", "-l", "what do you see?")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "I see two and three." in s, "the answer")
        tmux.run("send-keys", "-t", "main", "-l", "/workspace")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "w1  file.py  lines 2-3" in s, "the window listed")
        system = srv.chat_requests[0]["messages"][0]
        assert system["role"] == "system"
        prompt = _text_of(system["content"])
        workspace = prompt[prompt.index("# WORKSPACE") :]
        assert "## file.py · w1 · lines 2-3\n     2\ttwo = 2\n     3\tthree = 3" in workspace
        assert "one = 1" not in workspace and "four = 4" not in workspace


def test_the_plan_the_model_sets_shows_in_the_sidebar_and_a_toggle_reaches_it(
    tmux: Tmux, project: Path
) -> None:
    """The model sets a plan with update_state; the sidebar lists it; the user selects the
    plan with Tab and marks an item done with space; the next request's TASK STATE says so."""
    plan = [
        {"id": "p1", "title": "Read the code", "status": "in_progress"},
        {"id": "p2", "title": "Write the fix", "status": "pending"},
    ]
    update = json.dumps({"merge": {"goal": "fix it", "plan": plan}})
    script = [
        {"text": "Planning.", "tool_calls": [{"name": "update_state", "arguments": update}]},
        {"text": "Plan set."},
        {"text": "Noted your edit."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
        tmux.run("new-session", "-d", "-s", "main", "-x", "160", "-y", "40", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "fix it")
        tmux.run("send-keys", "-t", "main", "Enter")
        screen = tmux.wait_for(lambda s: "Plan set." in s, "the answer")
        assert "▸ plan: ◐ Read the code · ☐ Write the fix" in screen  # the turn's line
        sidebar = [line.rpartition("▏")[2].strip() for line in screen.splitlines()]
        assert "◐ Read the code" in sidebar and "☐ Write the fix" in sidebar
        assert "update_state" not in screen
        tmux.run("send-keys", "-t", "main", "Tab")
        tmux.wait_for(lambda s: "space done · b blocked" in s, "the plan's keys")
        tmux.run("send-keys", "-t", "main", "Down", "Space")
        tmux.wait_for(lambda s: "☑ Write the fix" in s, "the item done")
        tmux.run("send-keys", "-t", "main", "Escape")
        tmux.run("send-keys", "-t", "main", "-l", "go on")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Noted your edit." in s, "the next answer")
        requests = srv.chat_requests
        assert "The user changed it since your last step" not in _text_of(
            requests[1]["messages"][0]["content"]
        )
        system = _text_of(requests[2]["messages"][0]["content"])
        told = system[system.index("The user changed it since your last step") :]
        assert '"path":"/plan/1/status","value":"done"' in told.splitlines()[1]


def _status_line(screen: str) -> str:
    """The status bar: the screen's last line that says something."""
    return [line for line in screen.splitlines() if line.strip()][-1].strip()


def _answered(screen: str, text: str) -> bool:
    """`text` is on the screen and the turn has ended: a command that waits for the turn (such
    as /undo or /compact) would be refused while the last words are still being shown."""
    return text in screen and "○ ready" in _status_line(screen)


def test_shift_tab_plans_and_the_gate_switches_to_build_and_goes_ahead(
    tmux: Tmux, project: Path, tmp_path: Path
) -> None:
    """Shift+Tab puts the session in plan mode (the badge says PLAN); the model, offered no
    write, sets a plan and ends its turn; the plan gate lists it, and `y` switches to build
    (the badge says BUILD) and sends "Go ahead with the plan.", whose request offers
    write_file again (read back from the loopback server's log)."""
    plan = [
        {"id": "p1", "title": "Read greet.py", "status": "done"},
        {"id": "p2", "title": "Add a name parameter", "status": "pending"},
    ]
    update = json.dumps({"merge": {"goal": "greet takes a name", "plan": plan}})
    script = [
        {"text": "Reading.", "tool_calls": [{"name": "update_state", "arguments": update}]},
        {"text": "The plan is ready."},
        {"text": "Carried out the plan."},
    ]
    log = tmp_path / "requests.jsonl"
    with LoopbackServer(script, log_path=log) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project), "--no-debug-log"]
        tmux.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "36", shlex.join(argv))
        ready = tmux.wait_for(lambda s: "○ ready" in s, "the prompt, ready")
        assert _status_line(ready).split()[:3] == ["BUILD", "○", "ready"]
        tmux.run("send-keys", "-t", "main", "BTab")  # build, auto
        auto = tmux.wait_for(lambda s: "AUTO" in _status_line(s), "the AUTO badge")
        assert _status_line(auto).split()[:2] == ["BUILD", "AUTO"]
        tmux.run("send-keys", "-t", "main", "BTab", "BTab")  # build, ask; then plan
        notice = "Plan mode: zizou reads and plans, and changes nothing."
        # The badge and the notice are drawn in two refreshes: wait for both.
        tmux.wait_for(
            lambda s: _status_line(s).startswith("PLAN") and notice in s,
            "the PLAN badge and its notice",
        )
        tmux.run("send-keys", "-t", "main", "-l", "make greet take a name")
        tmux.run("send-keys", "-t", "main", "Enter")
        gate = tmux.wait_for(lambda s: "Switch to build and carry it out?" in s, "the plan gate")
        assert "☑ Read greet.py" in gate and "☐ Add a name parameter" in gate
        time.sleep(1.0)  # the gate takes no key typed on as it opens: a pause arms it
        tmux.run("send-keys", "-t", "main", "y")
        tmux.wait_for(
            lambda s: (
                "Carried out the plan." in s
                and _status_line(s).startswith("BUILD")
                and "Build mode: zizou carries out the plan." in s
            ),
            "the plan carried out in build mode",
        )
    requests = [json.loads(line)["body"] for line in log.read_text().splitlines()]
    assert len(requests) == 3

    def offered(request: dict[str, object]) -> list[str]:
        tools = request.get("tools")
        assert isinstance(tools, list)
        return [tool["function"]["name"] for tool in tools]

    assert "write_file" not in offered(requests[0]) and "read_file" in offered(requests[0])
    assert "write_file" in offered(requests[2])
    users = [_text_of(m["content"]) for m in requests[2]["messages"] if m["role"] == "user"]
    assert users[-1] == "Go ahead with the plan."


def test_undo_puts_the_file_back_and_continue_shows_the_undone_state(
    tmux: Tmux, project: Path
) -> None:
    """/undo in the real app puts back the file a turn wrote (CRLF, byte for byte), takes the
    turn out of the chat and puts its message in the prompt; `zizou -c` shows the conversation
    without it."""
    (project / "notes.txt").write_bytes(b"kept line\r\n")
    write = {"path": "notes.txt", "content": "by zizou\n"}
    script = [
        {"text": "Hello there."},
        {"tool_calls": [{"name": "write_file", "arguments": json.dumps(write)}]},
        {"text": "Wrote the notes."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "--no-debug-log", "-C", str(project)]
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "40", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        for message, answer in (("say hello", "Hello there."), ("rewrite the notes", "Wrote")):
            tmux.run("send-keys", "-t", "main", "-l", message)
            tmux.run("send-keys", "-t", "main", "Enter")
            tmux.wait_for(lambda s, answer=answer: _answered(s, answer), "the answer")
        assert (project / "notes.txt").read_bytes() == b"by zizou\r\n"  # its line endings kept
        tmux.run("send-keys", "-t", "main", "-l", "/undo")
        tmux.run("send-keys", "-t", "main", "Enter")
        undone = tmux.wait_for(lambda s: "Undid turn" in s, "the undo")
        assert (project / "notes.txt").read_bytes() == b"kept line\r\n"
        assert "Wrote the notes." not in undone and "Hello there." in undone
        assert "restored notes.txt" in undone
        prompt = undone[undone.index("Its message is back in the prompt") :]
        assert "rewrite the notes" in prompt  # in the prompt box, below the notice
        tmux.run("send-keys", "-t", "main", "C-c")
        tmux.run("send-keys", "-t", "main", "C-c")
        tmux.wait_for(lambda s: s == "", "the app closing", limit_s=20)
        tmux.run(
            "new-session", "-d", "-s", "main", "-x", "100", "-y", "40", shlex.join([*argv, "-c"])
        )
        again = tmux.wait_for(lambda s: "Resumed session" in s, "the resumed session")
        assert "say hello" in again and "Hello there." in again
        assert "rewrite the notes" not in again and "Wrote the notes." not in again


def test_compact_shrinks_the_next_request_and_the_session_keeps_the_summary(
    tmux: Tmux, project: Path
) -> None:
    """/compact in the real app against the loopback server: the summary is shown, the next
    request starts from it (and is smaller), and the session file holds it."""
    script = [
        {"text": "A long answer. " * 300},
        {"text": "## Goal\nShip the release notes."},
        {"text": "Noted."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "--no-debug-log", "-C", str(project)]
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "40", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        for message, seen in (("write a lot", "A long answer."), ("/compact", "Compacted")):
            tmux.run("send-keys", "-t", "main", "-l", message)
            tmux.run("send-keys", "-t", "main", "Enter")
            tmux.wait_for(lambda s, seen=seen: _answered(s, seen), seen)
        tmux.run("send-keys", "-t", "main", "-l", "and now?")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Noted." in s, "the answer after the summary")
        first, summary, after = srv.chat_requests
    assert "Summarise this coding session" in _text_of(summary["messages"][-1]["content"])
    sent = [m for m in after["messages"] if m["role"] != "system"]
    assert _text_of(sent[0]["content"]).startswith("This session was compacted")
    assert "Ship the release notes." in _text_of(sent[0]["content"])
    assert _text_of(sent[-1]["content"]) == "and now?"
    assert len(json.dumps(after["messages"])) < len(json.dumps(first["messages"])) + 1000
    assert "A long answer." not in json.dumps(after["messages"])
    stored = "".join(p.read_text() for p in (project / ".zizou" / "sessions").glob("*.jsonl"))
    assert '"kind":"compacted"' in stored and "Ship the release notes." in stored


def test_esc_during_a_decks_run_stops_it_and_the_next_message_completes(
    tmux: Tmux, project: Path
) -> None:
    """A deck the model called is still waiting on its model: Esc stops the whole tree (the
    deck's row says so), and the next message gets its answer as usual."""
    decks = project / ".zizou" / "decks"
    decks.mkdir(parents=True, exist_ok=True)
    front = {
        "description": "Takes its time.",
        "input": {"type": "object", "properties": {"topic": {"type": "string"}}},
        "output": {"type": "object", "properties": {"summary": {"type": "string"}}},
        "tools": [],
    }
    (decks / "slowpoke.deck.md").write_text(f"---\n{json.dumps(front)}\n---\nSum it up.\n")
    script = [
        {"match": "You are the deck slowpoke,", "delay_s": 60, "text": "late"},
        {"match": "after the stop", "text": "Back to normal."},
        {"tool_calls": [{"name": "slowpoke", "arguments": '{"topic": "t"}'}]},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "--no-debug-log", "-C", str(project)]
        tmux.run("new-session", "-d", "-s", "main", "-x", "100", "-y", "40", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        tmux.run("send-keys", "-t", "main", "-l", "sum it up")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "◆ slowpoke" in s and "model call" in s, "the deck running")
        tmux.run("send-keys", "-t", "main", "Escape")
        tmux.wait_for(lambda s: "◆ slowpoke" in s and "✗" in s, "the deck row stopped")
        tmux.run("send-keys", "-t", "main", "-l", "after the stop")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Back to normal." in s, "the next answer")
        last = srv.chat_requests[-1]
    sent = [m for m in last["messages"] if m["role"] != "system"]
    [call] = next(m for m in sent if m.get("tool_calls"))["tool_calls"]
    [result] = [m for m in sent if m["role"] == "tool"]
    assert call["function"]["name"] == "slowpoke" and result["tool_call_id"] == call["id"]
    assert _text_of(sent[-1]["content"]) == "after the stop"


def test_an_approval_sets_the_windows_bell_flag(tmux: Tmux, project: Path) -> None:
    """An approval that waits rings the terminal bell at once: tmux flags the window."""
    command = {"command": "touch rung.txt"}
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps(command)}]},
        {"text": "Made it."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url, "--no-debug-log"]
        argv += ["--model", "openai/test-model", "-C", str(project)]
        tmux.run("new-session", "-d", "-s", "main", "-x", "200", "-y", "30", shlex.join(argv))
        tmux.wait_for(lambda s: "Ask zizou" in s, "the prompt")
        flag = "#{window_bell_flag}"
        assert tmux.run("display-message", "-p", "-t", "main", flag).strip() == "0"
        tmux.run("send-keys", "-t", "main", "-l", "make the file")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Run this command?" in s, "the approval dialog")
        deadline = time.monotonic() + scaled(10)
        while tmux.run("display-message", "-p", "-t", "main", flag).strip() != "1":
            assert time.monotonic() < deadline, "the window's bell flag was never set"
            time.sleep(0.05)
        tmux.run("send-keys", "-t", "main", "y")
        tmux.wait_for(lambda s: "Made it." in s, "the answer")


def test_a_projects_mcp_server_is_approved_then_its_tool_is_asked_for_and_answers(
    tmux: Tmux, project: Path
) -> None:
    """The real `mcp-server-git` behind the app: the project's .mcp.json is asked about first
    (its command line shown), /mcp says when the server is ready, and the model's call of its
    tool is approved like a command and reads the repository's real status."""
    from mcp_harness import config_text, git_server

    git = ["git", "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=project, check=True)
    (project / "todo.txt").write_text("ship\n")
    (project / ".mcp.json").write_text(config_text(git=git_server(project)))
    arguments = json.dumps({"repo_path": str(project)})
    script = [
        {"tool_calls": [{"name": "mcp__git__git_status", "arguments": arguments}]},
        {"text": "todo.txt is **untracked**."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url]
        argv += ["--model", "openai/test-model", "-C", str(project)]
        tmux.run("new-session", "-d", "-s", "main", "-x", "200", "-y", "40", shlex.join(argv))
        asked = tmux.wait_for(lambda s: "Start this project's MCP servers?" in s, "the question")
        assert "git (stdio):" in asked and "mcp_server_git --repository" in asked
        time.sleep(1)  # the dialog takes an answer once it has been on screen a moment
        tmux.run("send-keys", "-t", "main", "y")
        tmux.wait_for(lambda s: "Approved .mcp.json: starting git" in s, "the approval")
        deadline = time.monotonic() + scaled(60)
        while "git · project · ready · 12 tools" not in tmux.screen():
            assert time.monotonic() < deadline, tmux.screen()
            tmux.run("send-keys", "-t", "main", "-l", "/mcp")
            tmux.run("send-keys", "-t", "main", "Enter")
            time.sleep(1)
        tmux.run("send-keys", "-t", "main", "-l", "what is in the tree?")
        tmux.run("send-keys", "-t", "main", "Enter")
        dialog = tmux.wait_for(lambda s: "Call this MCP tool?" in s, "the approval dialog")
        assert "mcp__git__git_status" in dialog and "always allow mcp__git__git_status" in dialog
        tmux.run("send-keys", "-t", "main", "y")
        answer = tmux.wait_for(lambda s: "is untracked." in s, "the answer")
        assert "■ mcp__git__git_status" in answer
        status = next(m for m in srv.chat_requests[1]["messages"] if m["role"] == "tool")
        assert "Untracked files" in status["content"] and "todo.txt" in status["content"]
        tmux.run("send-keys", "-t", "main", "-l", "/exit")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: s == "", "zizou to exit (its session ends with it)", limit_s=30)
    assert not any("mcp_server_git" in line and str(project) in line for line in _processes())


def _processes() -> list[str]:
    found = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            found.append(path.read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return found


def test_r_without_an_id_lists_the_sessions_and_resumes_the_one_picked(
    tmux: Tmux, project: Path, zizou_home: Path
) -> None:
    with LoopbackServer([{"text": "The answer is 42."}, {"text": "unused"}]) as srv:
        base = ["--api-base", srv.base_url, "--model", "openai/test-model", "--no-debug-log"]
        first = run_cli(["-p", "what is the answer", *base], project, zizou_home)
        assert first.code == 0, first.stderr
        argv = [sys.executable, "-m", "zizou", "-r", *base]
        tmux.run("new-session", "-d", "-s", "main", "-x", "120", "-y", "30", "-c", str(project))
        tmux.run("send-keys", "-t", "main", "-l", f"exec {shlex.join(argv)}")
        tmux.run("send-keys", "-t", "main", "Enter")
        listed = tmux.wait_for(lambda s: "Resume a session of this project" in s, "the list")
        assert "what is the answer" in listed
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "The answer is 42." in s, "the resumed conversation")


def test_a_claude_projects_hook_is_trusted_blocks_rm_and_context_lists_what_was_loaded(
    tmux: Tmux, project: Path
) -> None:
    (project / "CLAUDE.md").write_text("Run make check before you answer.\n")
    (project / "old.log").write_text("x\n")
    claude = project / ".claude"
    (claude / "commands").mkdir(parents=True)
    (claude / "agents").mkdir()
    (claude / "commands" / "review.md").write_text("Review pull request #$ARGUMENTS.\n")
    (claude / "agents" / "tester.md").write_text(
        "---\ndescription: Runs the tests.\n---\nYou run the tests.\n"
    )
    block = "grep -q 'rm old' && echo 'rm is blocked here: use trash/' >&2 && exit 2; exit 0"
    hook = {"matcher": "Bash", "hooks": [{"type": "command", "command": block}]}
    settings = {"permissions": {"deny": ["Read(./secrets/**)"]}, "hooks": {"PreToolUse": [hook]}}
    (claude / "settings.json").write_text(json.dumps(settings))
    script = [
        {"tool_calls": [{"name": "run_bash", "arguments": json.dumps({"command": "rm old.log"})}]},
        {"text": "The hook stopped me."},
    ]
    with LoopbackServer(script) as srv:
        argv = [sys.executable, "-m", "zizou", "--api-base", srv.base_url, "--no-debug-log"]
        argv += ["--model", "openai/test-model", "-C", str(project)]
        tmux.env["ZIZOU_AGENTS_HOME"] = str(project.parent / "agents-home")
        tmux.run("new-session", "-d", "-s", "main", "-x", "160", "-y", "60", shlex.join(argv))
        dialog = tmux.wait_for(lambda s: "Run this project hook?" in s, "the trust dialog")
        assert ".claude/settings.json#PreToolUse.1" in dialog and "rm is blocked here" in dialog
        time.sleep(HookTrustScreen.ARM_S + HookTrustScreen.PAUSE_S)  # once armed, it answers
        tmux.run("send-keys", "-t", "main", "y")
        tmux.wait_for(lambda s: "Trusted .claude/settings.json#PreToolUse.1" in s, "the trust")
        tmux.run("send-keys", "-t", "main", "-l", "/context")
        tmux.run("send-keys", "-t", "main", "Enter")
        shown = tmux.wait_for(lambda s: "Repo map budget" in s, "the /context listing")
        for line in (
            "CLAUDE.md · ~",
            "/review · .claude/commands/review.md",
            "tester · .claude/agents/tester.md",
            ".claude/settings.json · ~",
            "PreToolUse Bash · \"grep -q 'rm old'",
            "trusted, runs",
            "deny Read(./secrets/**) (.claude/settings.json)",
        ):
            assert line in shown, f"{line!r} not on the screen:\n{shown}"
        tmux.run("send-keys", "-t", "main", "-l", "/review 42")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "The hook stopped me." in s, "the answer")
        first, second = srv.chat_requests
        assert first["messages"][-1]["content"] == "Review pull request #42."
        assert "Run make check before you answer." in first["messages"][0]["content"]
        refused = [m for m in second["messages"] if m["role"] == "tool"][-1]["content"]
        assert "rm is blocked here: use trash/" in refused
        assert (project / "old.log").exists()
        tmux.run("send-keys", "-t", "main", "-l", "/exit")
        tmux.run("send-keys", "-t", "main", "Enter")
        tmux.wait_for(lambda s: "Ask zizou" not in s, "the app closing", limit_s=20)
