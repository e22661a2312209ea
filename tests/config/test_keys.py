"""The key resolver, the stores, keyring backend detection, and masking. No network."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail
from keyring.backends.chainer import ChainerBackend
from keyring.errors import PasswordDeleteError

from zizou.config.keys import (
    KEYRING_SERVICE,
    ResolvedKey,
    loaded_secrets,
    mask_key,
    missing_key_error,
    remove_key,
    require_provider,
    resolve_key,
    save_key,
    store_status,
)
from zizou.config.keys_file import keys_file_path
from zizou.config.model_choice import open_model
from zizou.errors import UsageError

KEY = "sk-file-key-0123456789abcd"
REAL_BACKEND = keyring.get_keyring()
NO_KEYRING_HERE = type(REAL_BACKEND).__module__ == "keyring.backends.fail"


class MemoryKeyring(KeyringBackend):
    """A fake OS keyring at the seam: what a working Secret Service looks like to zizou."""

    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.store.pop((service, username), None) is None:
            raise PasswordDeleteError(username)


class PlaintextKeyring(MemoryKeyring):
    """Named like keyrings.alt's backend; ranks itself high to show the name rule wins."""


class QuietKeyring(MemoryKeyring):
    priority = 0.5  # type: ignore[assignment]


AltFileKeyring = type("Keyring", (MemoryKeyring,), {"__module__": "keyrings.alt.file"})


@pytest.fixture
def use_backend() -> Iterator[Any]:
    def install(backend: KeyringBackend) -> KeyringBackend:
        keyring.set_keyring(backend)
        return backend

    yield install
    keyring.set_keyring(REAL_BACKEND)


@pytest.fixture
def home(zizou_home: Path) -> Path:
    return zizou_home


def test_the_order_is_flag_then_env_then_store(home: Path) -> None:
    save_key("openai", KEY, "file")
    env = {"OPENAI_API_KEY": "sk-env-key-0123456789"}
    assert resolve_key("openai", flag="sk-flag", environ=env) == ResolvedKey("sk-flag", "flag")
    assert resolve_key("openai", environ=env) == ResolvedKey(
        env["OPENAI_API_KEY"], "env:OPENAI_API_KEY"
    )
    assert resolve_key("openai", environ={"OPENAI_API_KEY": "  "}) == ResolvedKey(KEY, "file")
    assert resolve_key("anthropic", environ={}) is None
    assert resolve_key("ollama_chat", environ={}) is None
    assert KEY not in os.environ.values()


def test_every_loaded_value_is_registered_for_redaction(home: Path) -> None:
    save_key("groq", "gsk-saved-0123456789", "file")
    resolve_key("openai", environ={"OPENAI_API_KEY": "sk-env-registered-0001"})
    resolve_key("openai", flag=" sk-flag-registered-0002 ")
    assert {"gsk-saved-0123456789", "sk-env-registered-0001", "sk-flag-registered-0002"} <= set(
        loaded_secrets()
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_keys_file_is_0600_in_a_0700_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIZOU_HOME", str(tmp_path / "fresh" / "zizou"))
    old_umask = os.umask(0)  # permissions must not depend on the user's umask
    try:
        where = save_key("openai", KEY, "file")
    finally:
        os.umask(old_umask)
    path = keys_file_path()
    assert str(path) in where and mode(path) == 0o600 and mode(path.parent) == 0o700
    save_key("anthropic", "sk-ant-0123456789abcd", "file")
    assert mode(path) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["keys.toml"]  # no temp files left


def test_an_existing_config_dir_is_made_private(home: Path) -> None:
    home.chmod(0o755)
    save_key("openai", KEY, "file")
    assert mode(home) == 0o700


def test_a_keys_file_others_can_read_is_refused_naming_chmod(home: Path) -> None:
    save_key("openai", KEY, "file")
    keys_file_path().chmod(0o644)
    with pytest.raises(UsageError, match=r"chmod 600 .*keys\.toml"):
        resolve_key("openai", environ={})
    with pytest.raises(UsageError, match="chmod 600"):
        save_key("anthropic", "sk-ant-0123456789abcd", "file")
    assert resolve_key("openai", environ={"OPENAI_API_KEY": "sk-env"}) is not None  # env first


def test_a_dir_others_can_write_is_refused(home: Path) -> None:
    save_key("openai", KEY, "file")
    home.chmod(0o777)
    with pytest.raises(UsageError, match=f"chmod 700 {home}"):
        resolve_key("openai", environ={})


def test_a_symlinked_keys_file_is_refused(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.toml"
    target.write_text('openai = "sk-elsewhere-000000000"\n')
    target.chmod(0o600)
    keys_file_path().symlink_to(target)
    with pytest.raises(UsageError, match="symlink"):
        resolve_key("openai", environ={})


def test_removing_the_last_key_removes_the_file(home: Path) -> None:
    save_key("openai", KEY, "file")
    assert remove_key("openai") == [str(keys_file_path())]
    assert not keys_file_path().exists() and remove_key("openai") == []


@pytest.mark.skipif(not NO_KEYRING_HERE, reason="this machine has a keyring backend")
def test_no_keyring_on_this_machine_is_detected_and_saving_there_is_refused(home: Path) -> None:
    status = store_status()
    assert status.kind == "none" and "no OS keyring" in status.detail
    with pytest.raises(UsageError) as refused:
        save_key("openai", KEY, "keyring")
    message = str(refused.value)
    assert "OPENAI_API_KEY" in message and "zizou keys set openai --file" in message
    assert not keys_file_path().exists()
    assert resolve_key("openai", environ={}) is None


@pytest.mark.parametrize(
    ("backend", "why"),
    [
        (PlaintextKeyring(), "plain text"),
        (AltFileKeyring(), "plain text"),
        (QuietKeyring(), "ranks too low"),
    ],
    ids=["plaintext-name", "keyrings.alt", "low-priority"],
)
def test_plaintext_and_untrusted_backends_are_refused(
    use_backend: Any, home: Path, backend: MemoryKeyring, why: str
) -> None:
    use_backend(backend)
    backend.store[(KEYRING_SERVICE, "openai")] = "sk-planted-0123456789"
    status = store_status()
    assert status.kind == "none" and why in status.detail
    with pytest.raises(UsageError, match="--file"):
        save_key("openai", KEY, "keyring")
    assert resolve_key("openai", environ={}) is None  # never read from it either
    assert backend.store == {(KEYRING_SERVICE, "openai"): "sk-planted-0123456789"}


def test_a_usable_keyring_is_the_store(use_backend: Any, home: Path) -> None:
    backend = use_backend(MemoryKeyring())
    assert store_status().kind == "keyring"
    save_key("anthropic", "sk-ant-kr-0123456789", "keyring")
    assert backend.store == {(KEYRING_SERVICE, "anthropic"): "sk-ant-kr-0123456789"}
    assert resolve_key("anthropic", environ={}) == ResolvedKey("sk-ant-kr-0123456789", "keyring")
    save_key("anthropic", "sk-ant-file-0123456789", "file")
    assert resolve_key("anthropic", environ={}).source == "keyring"  # type: ignore[union-attr]
    assert len(remove_key("anthropic")) == 2 and backend.store == {}


def test_a_chain_uses_its_best_usable_backend_and_never_the_plaintext_one(
    use_backend: Any, home: Path
) -> None:
    plain, good = PlaintextKeyring(), MemoryKeyring()
    chain = type("Chain", (ChainerBackend,), {"backends": [plain, good]})()
    use_backend(chain)
    save_key("openai", KEY, "keyring")
    assert good.store and not plain.store


def test_masking_never_shows_the_whole_key() -> None:
    assert mask_key("sk-proj-abcdefghijklmnop1234") == "sk-...1234"
    assert mask_key("short-key") == "****"
    found = ResolvedKey("sk-secret-value-0123456789", "file")
    assert "sk-secret-value" not in repr(found) and found.masked == "sk-...6789"


@pytest.mark.parametrize("text", ["", "   \n", "sk-two words", "sk-\x1b[2J"])
def test_empty_or_garbled_keys_are_refused(home: Path, text: str) -> None:
    with pytest.raises(UsageError):
        save_key("openai", text, "file")


def test_messages_name_the_fixes(use_backend: Any) -> None:
    use_backend(MemoryKeyring())
    assert str(missing_key_error("openai")) == (
        "No key for openai: run `zizou keys set openai` or set OPENAI_API_KEY"
    )
    use_backend(fail.Keyring())  # no keyring: `keys set` alone would refuse, so --file is named
    assert str(missing_key_error("openai")) == (
        "No key for openai: run `zizou keys set openai --file` or set OPENAI_API_KEY"
    )
    assert "DEEPSEEK_API_KEY" in str(missing_key_error("deepseek"))
    with pytest.raises(UsageError, match="openai, anthropic"):
        require_provider("nope")
    with pytest.raises(UsageError, match="needs no key"):
        save_key("ollama", KEY, "file")


def key_sent(model: object) -> object:
    """The api_key the litellm model underneath any wrapper (the retry layer) will send."""
    return getattr(model, "inner", model).api_key


def test_open_model_resolves_through_the_key_api(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(UsageError, match="zizou keys set openai"):
        open_model("openai/gpt-4o", None)
    assert key_sent(open_model("openai/x", "http://127.0.0.1:9/v1")) == "no-key"
    assert key_sent(open_model("ollama/qwen", None)) is None
    save_key("openai", KEY, "file")
    assert key_sent(open_model("openai/gpt-4o", None)) == KEY
    assert key_sent(open_model("gpt-4o", None, api_key="sk-flag")) == "sk-flag"
