"""Shared fixtures: a scratch project, and the real `zizou` CLI run against the loopback server."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))
# Test modules take the helpers below with `from conftest import run_cli`. pytest imports this
# file under its own name (importlib mode), and tests/ui puts its directory, with its own
# conftest.py, on the path too; so `conftest` is made to mean this file, whatever the order in
# which the directories are collected, instead of whichever conftest.py the path finds first.
sys.modules.setdefault("conftest", sys.modules[__name__])

from loopback import LoopbackServer  # noqa: E402
from waiting import scaled, timeout_scale  # noqa: E402

CLI_TIMEOUT_S = 90  # one `zizou` run, on a machine of ordinary speed


def pytest_configure(config: pytest.Config) -> None:
    """pytest-timeout's limit per test grows with the other limits (ZIZOU_TEST_TIMEOUT_SCALE)."""
    limit = config.getoption("timeout", None) or config.getini("timeout")
    if limit and timeout_scale() != 1:
        config.option.timeout = float(limit) * timeout_scale()


SLOW_DIRECTORIES = (TESTS / "mcp",)  # MCP server processes (tests/e2e/conftest.py: zizou ones)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow tier: the tests that start servers or zizou processes, by their directory or
    by the loopback server they open (`scripts/check.sh --fast` leaves them out)."""
    for item in items:
        fixtures = getattr(item, "fixturenames", ())
        if "loopback" in fixtures or any(d in item.path.parents for d in SLOW_DIRECTORIES):
            item.add_marker(pytest.mark.slow)


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout.strip().splitlines()[-1])


@pytest.fixture(autouse=True)
def agents_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The home folder whose `.claude`, `.codex`, `.gemini` zizou reads: never the real one."""
    home = tmp_path / "agents-home"
    monkeypatch.setenv("ZIZOU_AGENTS_HOME", str(home))
    return home


@pytest.fixture
def zizou_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "zizou-home"
    home.mkdir()
    monkeypatch.setenv("ZIZOU_HOME", str(home))
    return home


@pytest.fixture
def sandbox_on() -> None:
    """For tests of the sandbox itself: skipped on a machine without one, but a failure under
    CI (which installs bubblewrap), before any hostile command could run unsandboxed."""
    from zizou.sandbox import detect

    status = detect()
    if status.state != "on":
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI needs the sandbox: {status.problem}")
        pytest.skip(f"no sandbox on this machine: {status.problem}")


@pytest.fixture(scope="session")
def git_installed() -> None:
    """For tests that need the git program: skipped where it is missing (asked once, when the
    first such test runs, not while the tests are collected)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def run_main(capsys: pytest.CaptureFixture[str], *args: str) -> CliResult:
    """`zizou ARGS` in this process (a subcommand's quick path), as `run_cli` reports it."""
    from zizou.cli import main

    with pytest.raises(SystemExit) as exited:
        main(list(args))
    captured = capsys.readouterr()
    assert isinstance(exited.value.code, int)
    return CliResult(exited.value.code, captured.out, captured.err)


def cli_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(ZIZOU_HOME=str(home), OPENAI_API_KEY="sk-test-loopback", NO_COLOR="1")
    env.update(extra)
    return env


# A config.toml for a test whose server holds a reply until the test stops zizou: zizou's own
# connect timeout (15 s) must not retry it first, however slow the machine.
HOLDS_REPLIES = "[timeouts]\nconnect_s = 900\n"


def as_from_a_terminal() -> None:
    """A child's Ctrl+C as a terminal gives it (`preexec_fn`): a shell that starts a job in the
    background starts it with SIGINT ignored, and the tests' workers (and so their children)
    inherit that when the tests themselves run in the background."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_cli(
    args: list[str], cwd: Path, home: Path, stdin: str | None = None, **env: str
) -> CliResult:
    proc = subprocess.run(
        [sys.executable, "-m", "zizou", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env=cli_env(home, **env),
        timeout=scaled(CLI_TIMEOUT_S),
        check=False,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def loopback() -> Iterator[type[LoopbackServer]]:
    """The server class; tests open it with their own script."""
    yield LoopbackServer
