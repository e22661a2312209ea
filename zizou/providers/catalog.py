"""The providers zizou knows by name, which provider a model id belongs to, and what litellm's
local model map says about a model (context window, prices).

OpenAI, Anthropic, Google Gemini, Groq, OpenRouter and Ollama are listed with their key variable,
a default model and the cheapest request that proves a key works; any other litellm model id
typed in full ("deepseek/deepseek-chat") still works, keyed by litellm's `<PROVIDER>_API_KEY`
convention. Nothing here imports litellm (that takes ~2 s): the model map is read from the JSON
file litellm ships, found without importing the package. Checking a key lives in `key_check.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

Auth = Literal["bearer", "anthropic", "google", "none"]
OLLAMA_PORT = 11434
OLLAMA_BASE = f"http://127.0.0.1:{OLLAMA_PORT}"  # Ollama's default address


@dataclass(frozen=True)
class Provider:
    """One provider: how to name it, where its key lives, and how to check a key cheaply
    (GET `base_url + check_path` with the key sent the `auth` way)."""

    id: str
    name: str
    env_var: str | None
    default_model: str
    base_url: str
    check_path: str
    auth: Auth
    key_url: str | None = None  # where a user creates a key
    rejects: frozenset[int] = frozenset({401, 403})  # statuses that mean "bad key"

    @property
    def needs_key(self) -> bool:
        return self.auth != "none"


PROVIDERS: tuple[Provider, ...] = (
    Provider(
        "openai",
        "OpenAI",
        "OPENAI_API_KEY",
        "openai/gpt-4o",
        "https://api.openai.com/v1",
        "/models",
        "bearer",
        "https://platform.openai.com/api-keys",
    ),
    Provider(
        "anthropic",
        "Anthropic",
        "ANTHROPIC_API_KEY",
        "anthropic/claude-sonnet-4-5",
        "https://api.anthropic.com/v1",
        "/models",
        "anthropic",
        "https://console.anthropic.com/settings/keys",
    ),
    Provider(
        "gemini",
        "Google Gemini",
        "GEMINI_API_KEY",
        "gemini/gemini-2.5-pro",
        "https://generativelanguage.googleapis.com/v1beta",
        "/models",
        "google",
        "https://aistudio.google.com/apikey",
        frozenset({400, 401, 403}),  # Google answers a bad key with 400 API_KEY_INVALID
    ),
    Provider(
        "groq",
        "Groq",
        "GROQ_API_KEY",
        "groq/openai/gpt-oss-120b",
        "https://api.groq.com/openai/v1",
        "/models",
        "bearer",
        "https://console.groq.com/keys",
    ),
    Provider(
        "openrouter",
        "OpenRouter",
        "OPENROUTER_API_KEY",
        "openrouter/qwen/qwen3-coder",
        "https://openrouter.ai/api/v1",
        "/key",  # its /models is public, so it proves nothing about a key
        "bearer",
        "https://openrouter.ai/keys",
    ),
    Provider(
        "ollama",
        "Ollama",
        None,
        "ollama_chat/qwen2.5-coder",
        OLLAMA_BASE,
        "/api/tags",
        "none",
    ),
)

_BY_ID = {p.id: p for p in PROVIDERS}
_ALIASES = {"ollama_chat": "ollama"}  # litellm's chat-endpoint route to the same server

# Bare model names litellm routes without a "provider/" prefix, by their start.
_BARE_PREFIXES = (
    ("claude", "anthropic"),
    ("gemini", "gemini"),
    ("gpt", "openai"),
    ("chatgpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
)


def find_provider(name: str) -> Provider | None:
    """The catalog entry for a provider id (or an alias such as "ollama_chat"), else None."""
    key = name.strip().lower()
    return _BY_ID.get(_ALIASES.get(key, key))


def provider_of(model_id: str) -> str:
    """ "openai/gpt-4o" -> "openai"; a bare "claude-..." -> "anthropic"; other bare names ->
    "openai", which is what litellm assumes for an OpenAI-compatible endpoint."""
    prefix, slash, _ = model_id.strip().partition("/")
    if slash:
        return prefix.lower()
    name = model_id.strip().lower()
    for start, provider in _BARE_PREFIXES:
        if name.startswith(start):
            return provider
    return "openai"


def env_var_for(provider: str) -> str | None:
    """The variable holding the provider's key; None for providers that need none (ollama).
    Providers outside the catalog follow litellm's `<PROVIDER>_API_KEY` convention."""
    entry = find_provider(provider)
    if entry is not None:
        return entry.env_var
    return re.sub(r"[^A-Z0-9]+", "_", provider.upper()) + "_API_KEY"


def needs_key(provider: str) -> bool:
    return env_var_for(provider) is not None


def key_from_env(model_id: str, environ: Mapping[str, str]) -> str | None:
    """The key for the model's provider from `environ`, or None when unset or blank."""
    var = env_var_for(provider_of(model_id))
    if var is None:
        return None
    return environ.get(var, "").strip() or None


@dataclass(frozen=True)
class ModelInfo:
    """What litellm's local model map knows about a model; None where it does not say."""

    context_window: int | None
    max_output_tokens: int | None
    input_cost_per_token: float | None
    output_cost_per_token: float | None
    tool_calling: bool | None = None  # its `supports_function_calling`, when the map says
    vision: bool | None = None  # its `supports_vision`: it takes images

    def cost(self, input_tokens: int, output_tokens: int) -> float | None:
        """The price of a request in USD, or None when a price is unknown."""
        if self.input_cost_per_token is None or self.output_cost_per_token is None:
            return None
        return input_tokens * self.input_cost_per_token + output_tokens * self.output_cost_per_token


def model_map_path() -> Path | None:
    """litellm's bundled model map, located without importing litellm."""
    from zizou.paths import installed_package_file  # not needed to capture the keys at start

    return installed_package_file("litellm", "model_prices_and_context_window_backup.json")


@cache
def local_model_map() -> dict[str, Any]:
    """litellm's bundled model map (read once, without importing litellm); {} when absent."""
    path = model_map_path()
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _entry_for(model_id: str) -> dict[str, Any] | None:
    table = local_model_map()
    model_id = model_id.strip()
    entry = table.get(model_id)
    prefix, slash, bare = model_id.partition("/")
    if entry is None and slash:
        provider = _ALIASES.get(prefix.lower(), prefix.lower())
        entry = table.get(f"{provider}/{bare}")
        candidate = table.get(bare)
        if entry is None and isinstance(candidate, dict):
            entry = candidate if candidate.get("litellm_provider") == provider else None
    return entry if isinstance(entry, dict) else None


def _number(entry: Mapping[str, Any], field: str, kind: type[int] | type[float]) -> Any:
    value = entry.get(field)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return kind(value)


def model_info(model_id: str) -> ModelInfo | None:
    """Context window and prices for `model_id` from litellm's local map, or None when the map
    does not know the model (it still works; its cost is shown as unknown)."""
    entry = _entry_for(model_id)
    if entry is None:
        return None
    output = _number(entry, "max_output_tokens", int) or _number(entry, "max_tokens", int)
    return ModelInfo(
        context_window=_number(entry, "max_input_tokens", int),
        max_output_tokens=output,
        input_cost_per_token=_number(entry, "input_cost_per_token", float),
        output_cost_per_token=_number(entry, "output_cost_per_token", float),
        tool_calling=_flag(entry, "supports_function_calling"),
        vision=_flag(entry, "supports_vision"),
    )


def _flag(entry: Mapping[str, Any], field: str) -> bool | None:
    value = entry.get(field)
    return value if isinstance(value, bool) else None


def ollama_base_from_env(environ: Mapping[str, str]) -> str | None:
    """Where Ollama listens, as the environment says: `OLLAMA_BASE_URL` (a URL), else
    `OLLAMA_API_BASE` (litellm's own variable), else `OLLAMA_HOST` (`host:port`, as the ollama
    program reads it: http and port 11434 unless given; a listen-everywhere address means this
    machine). None when none is set. The address is Ollama's native one, without "/v1"."""
    for name in ("OLLAMA_BASE_URL", "OLLAMA_API_BASE"):
        url = environ.get(name, "").strip()
        if url:
            return url.rstrip("/").removesuffix("/v1")
    host = environ.get("OLLAMA_HOST", "").strip()
    return _ollama_host_url(host) if host else None


def _ollama_host_url(host: str) -> str:
    scheme, sep, rest = host.partition("://")
    if sep:
        default = 443 if scheme.lower() == "https" else 80
    else:
        scheme, rest, default = "http", host, OLLAMA_PORT
    rest = rest.split("/", 1)[0]
    if rest.startswith("["):  # [IPv6]:port
        name, _, tail = rest[1:].partition("]")
        number = tail.removeprefix(":")
    elif rest.count(":") == 1:
        name, _, number = rest.partition(":")
    else:  # no port, or a bare IPv6 address
        name, number = rest, ""
    if name in ("", "0.0.0.0", "::"):
        name = "127.0.0.1"
    port = number if number.isdigit() else str(default)
    return f"{scheme}://{f'[{name}]' if ':' in name else name}:{port}"


__all__ = [
    "OLLAMA_BASE",
    "PROVIDERS",
    "ModelInfo",
    "Provider",
    "env_var_for",
    "find_provider",
    "key_from_env",
    "model_info",
    "model_map_path",
    "needs_key",
    "ollama_base_from_env",
    "provider_of",
]
