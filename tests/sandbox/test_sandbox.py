"""The sandbox around the model's commands, run for real with bubblewrap: what a command inside
can and cannot do to the project, the rest of the disk, other processes and the network."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from zizou.sandbox import Sandbox, SandboxStatus, detect
from zizou.sandbox.bwrap import bwrap_argv
from zizou.sandbox.protected import ProtectedPaths, find_protected
from zizou.sandbox.seatbelt import seatbelt_profile
from zizou.tools.run_bash import ShellOutcome, run_shell

STATUS = detect()
# CI installs bubblewrap: there a missing sandbox is a failure, not a skip.
needs_sandbox = pytest.mark.usefixtures("sandbox_on")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".env").write_text("API_TOKEN=hunter2-from-dotenv\n")
    (root / "src").mkdir()
    (root / "src" / "Server.PEM").write_text("-----BEGIN PRIVATE KEY-----\nsecretpem\n")
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".zizou").mkdir()
    (root / ".zizou" / "info.json").write_text('{"session": "private"}\n')
    (tmp_path / "outside").mkdir()
    return root


def run(root: Path, command: str, *, network: bool = False, hidden: tuple[Path, ...] = ()) -> str:
    sandbox = Sandbox(root, STATUS, hidden)
    prefix = sandbox.prefix(network=network)
    env = {"PATH": os.environ["PATH"], "HOME": str(root.parent)}
    outcome: ShellOutcome = asyncio.run(
        run_shell(command, cwd=root, env=env, timeout_s=30, prefix=prefix)
    )
    return f"exit={outcome.exit_code}\n{outcome.output}"


def test_the_walk_finds_git_dirs_and_secret_files_case_insensitively(repo: Path) -> None:
    (repo / "vendor" / "lib" / ".git").mkdir(parents=True)
    (repo / "node_modules" / "x").mkdir(parents=True)
    (repo / "node_modules" / "x" / ".env").write_text("skipped\n")
    (repo / "keys").mkdir()
    (repo / "keys" / "ID_RSA").write_text("k\n")
    (repo / ".env.example").write_text("TEMPLATE=1\n")
    found = find_protected(repo)
    assert found.git == (repo / ".git", repo / "vendor" / "lib" / ".git")
    assert found.secrets == (repo / ".env", repo / "keys" / "ID_RSA", repo / "src" / "Server.PEM")


def test_the_bwrap_command_line_protects_in_the_right_order(repo: Path) -> None:
    found = ProtectedPaths(git=(repo / ".git",), secrets=(repo / ".env", repo / "gone.pem"))
    argv = bwrap_argv(repo, found, network=False, hidden_dirs=(repo.parent / "outside",))
    text = " ".join(argv)
    assert "--unshare-net" in argv and "--unshare-pid" in argv and "--die-with-parent" in argv
    assert text.index(f"--bind {repo} {repo}") < text.index(f"--ro-bind-try {repo}/.git")
    assert f"--ro-bind /dev/null {repo}/.env" in text
    assert "gone.pem" not in text  # binding a vanished file would create it on the host
    assert f"--tmpfs {repo}/.zizou --remount-ro {repo}/.zizou" in text
    assert f"--tmpfs {repo.parent}/outside" in text
    assert argv[-1] == "--"
    with_net = bwrap_argv(repo, found, network=True)
    assert "--unshare-net" not in with_net


def test_a_hidden_dir_that_holds_the_project_is_not_hidden(repo: Path) -> None:
    argv = bwrap_argv(repo, ProtectedPaths(), network=False, hidden_dirs=(repo.parent,))
    assert f"--tmpfs {repo.parent} " not in " ".join(argv) + " "


def test_the_macos_profile_denies_what_bwrap_denies(repo: Path) -> None:
    found = ProtectedPaths(git=(repo / ".git",), secrets=(repo / ".env",))
    profile = seatbelt_profile(repo, found, network=False, hidden_dirs=(Path("/cfg/zizou"),))
    assert "(deny file-write*)" in profile
    assert f'(allow file-write* (subpath "{repo}")' in profile
    assert f'(deny file-write* (subpath "{repo}/.git")' in profile
    assert f'(literal "{repo}/.env")' in profile and '(subpath "/cfg/zizou")' in profile
    assert "(deny network*)" in profile
    assert "(deny network*)" not in seatbelt_profile(repo, found, network=True)


def test_a_quote_in_a_path_cannot_break_out_of_the_profile(tmp_path: Path) -> None:
    root = tmp_path / 'a"b) (allow file-write* (subpath "/'
    profile = seatbelt_profile(root, ProtectedPaths(), network=False)
    assert '(allow file-write* (subpath "/"' not in profile.replace('\\"', "")


def test_without_a_sandbox_the_prefix_is_empty(repo: Path) -> None:
    assert Sandbox(repo, SandboxStatus("off")).prefix() == []
    missing = SandboxStatus("auto", problem="bwrap (bubblewrap) is not installed")
    assert Sandbox(repo, missing).prefix() == []
    assert missing.state == "missing" and "Every command the model runs asks" in (
        missing.warning() or ""
    )
    assert SandboxStatus("off").warning() is None


@needs_sandbox
def test_git_metadata_cannot_be_written_even_through_quoting_tricks(repo: Path) -> None:
    out = run(repo, 'touch .gi""t/hooks/pre-commit; X=.gi; touch ${X}t/hooks/x; echo hi > .git/y')
    assert "Read-only file system" in out
    assert sorted(p.name for p in (repo / ".git" / "hooks").iterdir()) == []
    assert not (repo / ".git" / "y").exists()


@needs_sandbox
def test_secret_files_cannot_be_read_by_any_name(repo: Path) -> None:
    out = run(repo, "cat .en?; cat src/*.PE?; cat .env; grep -r hunter2 . ; echo done")
    assert "hunter2" not in out and "secretpem" not in out
    assert out.rstrip().endswith("done")
    assert (repo / ".env").read_text() == "API_TOKEN=hunter2-from-dotenv\n"


@needs_sandbox
def test_the_project_is_writable_and_the_rest_of_the_disk_is_not(repo: Path) -> None:
    outside = repo.parent / "outside"
    etc = f"/etc/zizou-escape-{os.getpid()}"
    out = run(repo, f"echo ok > src/new.txt; touch {outside}/escaped; touch {etc}; echo end")
    assert (repo / "src" / "new.txt").read_text() == "ok\n"
    assert not (outside / "escaped").exists()  # under /tmp: the private /tmp hides it
    assert not Path(etc).exists()
    assert "Read-only file system" in out


@needs_sandbox
def test_tmp_is_private(repo: Path, tmp_path: Path) -> None:
    marker = f"/tmp/zizou-sandbox-{os.getpid()}-marker"
    out = run(repo, f"echo inside > {marker} && cat {marker}")
    assert "inside" in out
    assert not Path(marker).exists()


@needs_sandbox
def test_zizou_state_and_config_dir_are_masked(repo: Path) -> None:
    # Outside /tmp: the private /tmp would hide a config dir there whatever hidden_dirs says.
    config = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="zizou-config-"))
    try:
        (config / "keys.toml").write_text('openai = "sk-in-the-key-file"\n')
        out = run(
            repo,
            f"cat .zizou/info.json; cat {config}/keys.toml; touch .zizou/x; ls -a .zizou",
            hidden=(config,),
        )
    finally:
        shutil.rmtree(config)
    assert "private" not in out and "sk-in-the-key-file" not in out
    assert not (repo / ".zizou" / "x").exists()


@needs_sandbox
def test_no_other_process_is_visible(repo: Path) -> None:
    out = run(repo, "ls /proc | grep -c '^[0-9]'; cat /proc/$PPID/environ | tr '\\0' '\\n'")
    count = int(out.splitlines()[1])
    assert count <= 4  # bwrap as init, bash, ls and grep
    # The test process started with the real HOME; the command got another one.
    assert f"HOME={os.environ['HOME']}" not in out


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(10)
    port = server.getsockname()[1]

    def accept() -> None:
        for _ in range(4):
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield port
    server.close()


@needs_sandbox
def test_no_network_unless_allowed(repo: Path, listener: int) -> None:
    probe = (
        'python3 -c \'import socket,sys; socket.create_connection(("127.0.0.1", '
        f'{listener}), timeout=3); print("connected")\''
    )
    assert "connected" not in run(repo, probe)
    assert "connected" in run(repo, probe, network=True)


@needs_sandbox
def test_a_secret_file_made_by_one_command_is_masked_for_the_next(repo: Path) -> None:
    sandbox = Sandbox(repo, STATUS)
    env = {"PATH": os.environ["PATH"]}

    async def both() -> tuple[ShellOutcome, ShellOutcome]:
        first = await run_shell(
            "echo TOKEN=made-later > .env.local",
            cwd=repo,
            env=env,
            timeout_s=30,
            prefix=sandbox.prefix(),
        )
        sandbox.refresh_soon()
        second = await run_shell(
            "cat .env.local", cwd=repo, env=env, timeout_s=30, prefix=sandbox.prefix()
        )
        return first, second

    first, second = asyncio.run(both())
    assert first.exit_code == 0
    assert "made-later" not in second.output


@needs_sandbox
def test_zizou_state_is_hidden_even_before_zizou_made_it(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    out = run(root, "mkdir -p .zizou/sessions && echo forged > .zizou/sessions/x.jsonl; echo end")
    assert out.rstrip().endswith("end")
    assert (root / ".zizou").is_dir() and not (root / ".zizou" / "sessions").exists()


def test_zizous_own_python_under_a_hidden_folder_stays_visible() -> None:
    """A CI checkout under /tmp: the private /tmp must not hide the venv the worker runs on."""
    import sys

    from zizou.sandbox.bwrap import zizou_dirs_in

    prefix = Path(sys.prefix).resolve()
    assert prefix in zizou_dirs_in(prefix.parent)
    assert zizou_dirs_in(Path("/nonexistent-folder")) == []
