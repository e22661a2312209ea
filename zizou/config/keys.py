"""API keys: the one resolver, the key stores, and a registry of every key value loaded.

The resolver's order (the first that has a key wins):

1. the explicit flag (`--api-key`);
2. the provider's environment variable (`OPENAI_API_KEY`, ... see the provider catalog);
3. the key store: the OS keyring when a usable backend exists, then the keys file
   (`<user config dir>/keys.toml`) if the user chose it with `zizou keys set PROVIDER --file`.

A keyring backend is usable unless it is keyring's failing or null backend, its module or class
name marks it as plain text or as `keyrings.alt` (which keeps keys in a file), or keyring itself
ranks it below 1, its own threshold for a backend it recommends. When keyring chains several
backends, zizou uses the best usable one among them and never the others. With no usable backend,
saving to the keyring is refused with a message naming the choices: an env var, or `--file`.
There is no silent plain-text fallback.

Keys are returned to the caller, who passes them to litellm as `api_key=`; nothing here writes to
`os.environ`, so child processes (run_bash) never see a key. Every value loaded or saved is
recorded so the debug-log redactor can scrub exact values: `loaded_secrets()`.

At start-up `capture_key_environment()` moves the key variables (every catalog provider's, and
any `<PROVIDER>_API_KEY`) out of `os.environ` into memory, where the resolver reads them
(`key_environ()`). Removing a variable does not change what `/proc/PID/environ` shows (the
environment the process started with), so on Linux it also blanks those entries in that block
and marks the process non-dumpable: another process of the same user can then read neither
its environment nor its memory (`ps eww`, `cat /proc/$PPID/environ` from a command the model
runs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zizou.config.key_capture import (
    KEY_ENVIRON,
    capture_key_environment,
    is_key_variable,
    key_environ,
    take_key_variables,
)
from zizou.config.keys_file import delete_file_key, keys_file_path, read_keys, set_file_key
from zizou.errors import UsageError
from zizou.providers.catalog import PROVIDERS, Provider, env_var_for, find_provider
from zizou.providers.key_check import Validation, list_ollama_models, validate_key
from zizou.redact import loaded_secrets, remember_secret

KEYRING_SERVICE = "zizou"
StoreChoice = Literal["keyring", "file"]


@dataclass(frozen=True)
class ResolvedKey:
    """A key and where it came from: "flag", "env:<VAR>", "keyring" or "file"."""

    value: str = field(repr=False)
    source: str

    @property
    def masked(self) -> str:
        return mask_key(self.value)


@dataclass(frozen=True)
class StoreStatus:
    """Whether an OS keyring will hold keys ("keyring") or not ("none"), and why, in words."""

    kind: Literal["keyring", "none"]
    detail: str


def _remember(value: str) -> str:
    remember_secret(value)
    return value


def mask_key(key: str) -> str:
    """ "sk-proj-...abcd" for display; short values are hidden entirely."""
    return "****" if len(key) < 12 else f"{key[:3]}...{key[-4:]}"


def keyring_problem(backend: Any) -> str | None:
    """Why zizou will not keep keys in this keyring backend, or None when it will (the rule is in
    the module docstring)."""
    cls = type(backend)
    name = f"{cls.__module__}.{cls.__qualname__}"
    parts = name.lower().split(".")
    if name.startswith(("keyring.backends.fail.", "keyring.backends.null.")):
        return (
            "no OS keyring is available (keyring found no backend; on Linux that needs a "
            "Secret Service such as GNOME Keyring or KWallet on a D-Bus session)"
        )
    if "alt" in parts or any("plaintext" in part for part in parts):
        return f"the keyring backend {name} keeps keys in plain text, so zizou will not use it"
    try:
        priority = float(backend.priority)
    except Exception:  # a backend that cannot rank itself is not one to trust
        priority = 0.0
    if priority < 1:
        return f"the keyring backend {name} ranks too low ({priority:g}) to be trusted with keys"
    return None


def _keyring_backend() -> tuple[Any | None, str]:
    """The backend zizou uses (None when there is none) and a description of the choice."""
    import keyring
    from keyring.backends.chainer import ChainerBackend

    chosen = keyring.get_keyring()
    candidates = list(chosen.backends) if isinstance(chosen, ChainerBackend) else [chosen]
    problems: list[str] = []
    for backend in candidates:
        problem = keyring_problem(backend)
        if problem is None:
            return backend, f"the OS keyring ({type(backend).__qualname__})"
        problems.append(problem)
    return None, "; ".join(problems) or "no OS keyring is available"


def store_status() -> StoreStatus:
    backend, detail = _keyring_backend()
    return StoreStatus("keyring" if backend is not None else "none", detail)


def _from_keyring(provider: str) -> str | None:
    from keyring.errors import KeyringError

    backend, _ = _keyring_backend()
    if backend is None:
        return None
    try:
        value = backend.get_password(KEYRING_SERVICE, provider)
    except KeyringError:
        return None  # a locked or broken keyring: the other sources still apply
    if not isinstance(value, str):
        return None
    return value.strip() or None


def stored_key(provider: str) -> ResolvedKey | None:
    """The provider's key from the key store: the OS keyring, then the keys file."""
    value = _from_keyring(provider)
    if value is not None:
        return ResolvedKey(_remember(value), "keyring")
    in_file = read_keys()
    for other in in_file.values():  # all of them are in memory now: all get redacted
        _remember(other.strip())
    value = in_file.get(provider, "").strip() or None
    return ResolvedKey(value, "file") if value is not None else None


def _canonical(provider: str) -> str:
    entry = find_provider(provider)
    return entry.id if entry is not None else provider.strip().lower()


def resolve_key(
    provider: str, flag: str | None = None, environ: Mapping[str, str] = KEY_ENVIRON
) -> ResolvedKey | None:
    """The provider's key by the documented order (flag, env var, key store), or None."""
    if flag is not None and flag.strip():
        return ResolvedKey(_remember(flag.strip()), "flag")
    provider = _canonical(provider)
    var = env_var_for(provider)
    if var is None:  # a provider that needs no key (ollama)
        return None
    value = environ.get(var, "").strip()
    if value:
        return ResolvedKey(_remember(value), f"env:{var}")
    return stored_key(provider)


def require_provider(name: str) -> Provider:
    """The catalog entry for `name`, or a UsageError listing the providers zizou stores keys for."""
    entry = find_provider(name)
    if entry is None:
        known = ", ".join(p.id for p in PROVIDERS)
        raise UsageError(
            f"unknown provider {name!r}: choose one of {known}; for another litellm provider "
            f"set {env_var_for(name)}"
        )
    return entry


def set_key_command(provider: str) -> str:
    """The command that saves a key here: with `--file` where there is no OS keyring, as
    `zizou keys set` alone would refuse."""
    plain = f"zizou keys set {provider}"
    return f"{plain} --file" if store_status().kind == "none" else plain


def missing_key_error(provider: str) -> UsageError:
    """ "No key for openai: run `zizou keys set openai` or set OPENAI_API_KEY"."""
    entry = find_provider(provider)
    var = env_var_for(provider)
    if entry is None:
        return UsageError(f"No key for {provider}: set {var} or pass --api-key")
    return UsageError(f"No key for {entry.id}: run `{set_key_command(entry.id)}` or set {var}")


def no_keyring_error(provider: str, detail: str) -> UsageError:
    var = env_var_for(provider)
    return UsageError(
        f"cannot save the key for {provider} in an OS keyring: {detail}. zizou does not fall "
        "back to plain text on its own. Choose one:\n"
        f"  - set {var} in your environment (zizou never stores it), or\n"
        f"  - run `zizou keys set {provider} --file` to keep it in {keys_file_path()}, "
        "a file only you can read (mode 0600)"
    )


def clean_key(text: str) -> str:
    """The key as typed, stripped; a UsageError when it is empty or has spaces or control chars."""
    key = text.strip()
    if not key:
        raise UsageError("the key is empty: paste it at the prompt, or pipe it in on stdin")
    if any(ch.isspace() or not ch.isprintable() for ch in key):
        raise UsageError("the key contains spaces or control characters: check what you pasted")
    return key


def save_key(provider: str, key: str, store: StoreChoice) -> str:
    """Keep `key` in the chosen store; returns where it went, in words. Refuses the keyring
    store when no usable backend exists (naming the choices) rather than falling back."""
    entry = require_provider(provider)
    if not entry.needs_key:
        raise UsageError(f"{entry.name} needs no key; point zizou at it with --api-base")
    key = _remember(clean_key(key))
    if store == "file":
        return f"{set_file_key(entry.id, key)} (mode 0600)"
    backend, detail = _keyring_backend()
    if backend is None:
        raise no_keyring_error(entry.id, detail)
    from keyring.errors import KeyringError

    try:
        backend.set_password(KEYRING_SERVICE, entry.id, key)
    except KeyringError as exc:
        raise UsageError(
            f"{detail} refused the key ({exc}): unlock it and try again, or run "
            f"`zizou keys set {entry.id} --file`"
        ) from exc
    return detail


def remove_key(provider: str) -> list[str]:
    """Delete the provider's key from every store that holds it; returns where it was."""
    from keyring.errors import PasswordDeleteError

    entry = require_provider(provider)
    removed: list[str] = []
    backend, detail = _keyring_backend()
    if backend is not None and _from_keyring(entry.id) is not None:
        try:
            backend.delete_password(KEYRING_SERVICE, entry.id)
            removed.append(detail)
        except PasswordDeleteError:
            pass
    if keys_file_path().exists() and delete_file_key(entry.id):
        removed.append(str(keys_file_path()))
    return removed


__all__ = [
    "KEYRING_SERVICE",
    "KEY_ENVIRON",
    "ResolvedKey",
    "StoreChoice",
    "StoreStatus",
    "Validation",
    "capture_key_environment",
    "clean_key",
    "is_key_variable",
    "key_environ",
    "keyring_problem",
    "keys_file_path",
    "list_ollama_models",
    "loaded_secrets",
    "mask_key",
    "missing_key_error",
    "no_keyring_error",
    "remove_key",
    "require_provider",
    "resolve_key",
    "save_key",
    "store_status",
    "stored_key",
    "take_key_variables",
    "validate_key",
]
