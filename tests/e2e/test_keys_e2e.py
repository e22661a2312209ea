"""`zizou keys` and the key resolver through the real CLI, against the loopback server."""

from __future__ import annotations

import stat
from pathlib import Path

import keyring
import pytest
from conftest import run_cli
from loopback import LoopbackServer

KEY = "sk-e2e-canary-0123456789wxyz"
NO_KEYRING_HERE = type(keyring.get_keyring()).__module__ == "keyring.backends.fail"
needs_no_keyring = pytest.mark.skipif(not NO_KEYRING_HERE, reason="this machine has a keyring")


def set_file_key(project: Path, home: Path, provider: str = "openai", key: str = KEY) -> None:
    args = ["keys", "set", provider, "--file"]
    result = run_cli(args, project, home, stdin=f"{key}\n", OPENAI_API_KEY="")
    assert result.code == 0, result.stderr
    assert key not in result.stdout + result.stderr
    assert f"({key[:3]}...{key[-4:]})" in result.stdout


@needs_no_keyring
def test_a_file_key_set_with_no_keyring_drives_a_headless_turn(
    project: Path, zizou_home: Path
) -> None:
    set_file_key(project, zizou_home)
    keys_file = zizou_home / "keys.toml"
    assert stat.S_IMODE(keys_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(zizou_home.stat().st_mode) == 0o700
    with LoopbackServer([{"text": "hello"}]) as srv:
        args = ["-p", "hi", "--api-base", srv.base_url]
        result = run_cli(args, project, zizou_home, OPENAI_API_KEY="")
        chats = [r for r in srv.requests if r.path.endswith("/chat/completions")]
    assert result.code == 0, result.stderr
    assert result.stdout == "hello\n"
    assert chats[0].headers["authorization"] == f"Bearer {KEY}"


@needs_no_keyring
def test_without_file_the_refusal_names_the_choices(project: Path, zizou_home: Path) -> None:
    result = run_cli(
        ["keys", "set", "openai"], project, zizou_home, stdin=f"{KEY}\n", OPENAI_API_KEY=""
    )
    assert result.code == 2
    assert "no OS keyring" in result.stderr
    assert "OPENAI_API_KEY" in result.stderr and "zizou keys set openai --file" in result.stderr
    assert not (zizou_home / "keys.toml").exists()


def test_keys_list_shows_sources_masked(project: Path, zizou_home: Path) -> None:
    set_file_key(project, zizou_home, "anthropic", "sk-ant-file-0123456789efgh")
    env_key = "sk-env-list-0123456789ijkl"
    result = run_cli(["keys", "list"], project, zizou_home, OPENAI_API_KEY=env_key)
    assert result.code == 0, result.stderr
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines() if line}
    assert rows["openai"] == ["env:OPENAI_API_KEY", "sk-...ijkl"]
    assert rows["anthropic"] == ["file", "sk-...efgh"]
    assert rows["gemini"] == ["not", "set"]
    assert env_key not in result.stdout and "0123456789efgh" not in result.stdout


SET_OPENAI = "zizou keys set openai" + (" --file" if NO_KEYRING_HERE else "")  # as works here


def test_a_missing_key_is_exit_2_naming_both_fixes(project: Path, zizou_home: Path) -> None:
    result = run_cli(
        ["-p", "hi", "--model", "openai/gpt-4o"], project, zizou_home, OPENAI_API_KEY=""
    )
    assert result.code == 2
    assert f"No key for openai: run `{SET_OPENAI}` or set OPENAI_API_KEY" in result.stderr


@needs_no_keyring
def test_config_without_a_key_or_a_keyring_names_the_command_that_works(
    project: Path, zizou_home: Path
) -> None:
    result = run_cli(["config", "--model", "openai/gpt-4o"], project, zizou_home, OPENAI_API_KEY="")
    assert result.code == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("api_key"))
    assert row.endswith("none: run `zizou keys set openai --file`")
    advised = row.rsplit("`", 2)[1].split()[1:]  # the command, as the user would run it
    saved = run_cli(advised, project, zizou_home, stdin=f"{KEY}\n", OPENAI_API_KEY="")
    assert saved.code == 0, saved.stderr


def test_an_open_keys_file_is_refused_naming_chmod(project: Path, zizou_home: Path) -> None:
    set_file_key(project, zizou_home)
    (zizou_home / "keys.toml").chmod(0o644)
    result = run_cli(
        ["-p", "hi", "--model", "openai/gpt-4o"], project, zizou_home, OPENAI_API_KEY=""
    )
    assert result.code == 2
    assert f"chmod 600 {zizou_home / 'keys.toml'}" in result.stderr


def test_the_api_key_flag_beats_the_env_var(project: Path, zizou_home: Path) -> None:
    with LoopbackServer([{"text": "ok"}]) as srv:
        args = ["-p", "hi", "--api-base", srv.base_url, "--api-key", "sk-flag-0123456789"]
        result = run_cli(args, project, zizou_home, OPENAI_API_KEY="sk-env-0123456789")
        chats = [r for r in srv.requests if r.path.endswith("/chat/completions")]
    assert result.code == 0, result.stderr
    assert chats[0].headers["authorization"] == "Bearer sk-flag-0123456789"


def test_set_validate_checks_the_key_live_then_remove(project: Path, zizou_home: Path) -> None:
    with LoopbackServer() as srv:
        args = ["keys", "set", "openai", "--file", "--validate", "--api-base", srv.base_url]
        result = run_cli(args, project, zizou_home, stdin=f"{KEY}\n", OPENAI_API_KEY="")
        seen = [(r.method, r.path, r.headers.get("authorization")) for r in srv.requests]
    assert result.code == 0, result.stderr
    assert "OpenAI accepted the key" in result.stdout
    assert seen == [("GET", "/v1/models", f"Bearer {KEY}")]
    removed = run_cli(["keys", "remove", "openai"], project, zizou_home, OPENAI_API_KEY="")
    assert removed.code == 0 and "Removed the key for openai" in removed.stdout
    assert not (zizou_home / "keys.toml").exists()


def test_unknown_providers_are_refused(project: Path, zizou_home: Path) -> None:
    result = run_cli(["keys", "set", "nope", "--file"], project, zizou_home, stdin="x\n")
    assert result.code == 2 and "unknown provider 'nope'" in result.stderr
