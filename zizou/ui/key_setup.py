"""What the key wizard knows without a screen: where each provider's key comes from now, which
model to use once a key works, and the words for the choices.

The wizard talks to the key API (`zizou.config.keys`) only through `KeyServices`, which adds
where keys are checked (`--api-base`, or a test server) and which environment is read. Every
call here may block (keyring over D-Bus, HTTP), so the screen runs them in thread workers. The
catalog is read when first needed: the app's first frame carries `KeyServices` but no wizard.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zizou.config.keys import ResolvedKey, StoreChoice, StoreStatus, Validation
    from zizou.providers.catalog import Provider


@dataclass(frozen=True)
class ProviderRow:
    """One line of the wizard's provider list."""

    provider: Provider
    key: ResolvedKey | None
    current: bool = False

    @property
    def status(self) -> str:
        if not self.provider.needs_key:
            return "no key needed: a server on your machine"
        if self.key is None:
            return f"no key (set {self.provider.env_var} or add one here)"
        return f"{source_words(self.key.source)} · {self.key.masked}"

    @property
    def stored(self) -> bool:
        """Whether zizou's key store holds the key shown (so it can be forgotten here)."""
        return self.key is not None and self.key.source in ("keyring", "file")


def source_words(source: str) -> str:
    """ "env:OPENAI_API_KEY" -> "key from $OPENAI_API_KEY"; "keyring"; "file"; "flag"."""
    if source.startswith("env:"):
        return f"key from ${source.removeprefix('env:')}"
    return {
        "keyring": "key in the OS keyring",
        "file": "key in the keys file (0600)",
        "flag": "key from --api-key",
    }.get(source, f"key from {source}")


@dataclass(frozen=True)
class SetupResult:
    """What the wizard settled: the model to use from now on, and how to reach it."""

    provider: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    api_base: str | None = None
    notes: tuple[str, ...] = ()


def model_after_setup(current_model: str, provider: Provider) -> str:
    """Keep the current model when it belongs to `provider`, else the provider's default."""
    from zizou.providers.catalog import find_provider, provider_of

    owner = find_provider(provider_of(current_model))
    if owner is not None and owner.id == provider.id:
        return current_model
    return provider.default_model


def key_result(row: ProviderRow, target_model: str, key: str, note: str) -> SetupResult:
    """What to switch to once `row`'s provider has a working key."""
    provider, notes = row.provider, [note]
    if row.key is not None and row.key.source.startswith("env:"):
        notes.append(
            f"${provider.env_var} is set in your environment and wins over a stored key in "
            "later runs: update or unset it."
        )
    model = model_after_setup(target_model, provider)
    return SetupResult(provider.id, model, api_key=key, notes=tuple(notes))


def ollama_result(url: str, name: str) -> SetupResult:
    """Use Ollama model `name` at `url`, and say how to start with it next time."""
    from zizou.providers.catalog import OLLAMA_BASE

    model = ollama_model_id(name)
    note = f"Using {model} at {url}. Next time: zizou --model {model}"
    if url.rstrip("/") != OLLAMA_BASE:
        note += f" --api-base {url}"
    return SetupResult("ollama", model, api_base=url, notes=(note,))


def export_line(provider: Provider) -> str:
    """The shell line that sets the provider's key, with a placeholder for the key itself."""
    return f"export {provider.env_var}=<your key>"


def store_words(status: StoreStatus) -> str:
    if status.kind == "keyring":
        return f"Keys you add are saved in {status.detail}."
    return (
        f"Key store: {status.detail}. zizou never falls back to plain text on its own: once a "
        "key checks out, you choose a file only you can read, or an environment variable."
    )


def _key_environ() -> Mapping[str, str]:
    """Where keys are read from: the key variables zizou took out of its environment at start-up
    (they are no longer in `os.environ`), then `os.environ`."""
    from zizou.config.key_capture import key_environ  # the key stores load when first used

    return key_environ()


@dataclass(frozen=True)
class KeyServices:
    """The key API as the wizard uses it. `api_base` is where keys are checked (the app's
    `--api-base`, or a test server); None checks each provider at its own address."""

    api_base: str | None = None
    environ: Mapping[str, str] = field(default_factory=_key_environ)

    def rows(self, current_model: str) -> list[ProviderRow]:
        from zizou.config.keys import resolve_key
        from zizou.providers.catalog import PROVIDERS, find_provider, provider_of

        current = find_provider(provider_of(current_model))
        return [
            ProviderRow(
                p,
                resolve_key(p.id, environ=self.environ) if p.needs_key else None,
                current is not None and current.id == p.id,
            )
            for p in PROVIDERS
        ]

    def store_status(self) -> StoreStatus:
        from zizou.config.keys import store_status

        return store_status()

    def check(self, provider: str, key: str) -> Validation:
        from zizou.config.keys import validate_key

        return validate_key(provider, key, api_base=self.api_base)

    def save(self, provider: str, key: str, store: StoreChoice) -> str:
        from zizou.config.keys import save_key

        return save_key(provider, key, store)

    def forget(self, provider: str) -> list[str]:
        from zizou.config.keys import remove_key

        return remove_key(provider)

    def ollama_models(self, base_url: str) -> list[str]:
        from zizou.config.keys import list_ollama_models

        return list_ollama_models(base_url)

    def keys_file(self) -> str:
        from zizou.config.keys import keys_file_path

        return str(keys_file_path())


def ollama_model_id(name: str) -> str:
    """A model from Ollama's list as zizou names it (litellm's chat route)."""
    return f"ollama_chat/{name}"


__all__ = [
    "KeyServices",
    "ProviderRow",
    "SetupResult",
    "export_line",
    "key_result",
    "model_after_setup",
    "ollama_model_id",
    "ollama_result",
    "source_words",
    "store_words",
]
