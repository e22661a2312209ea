"""Checking a key with the cheapest request each provider offers, and listing Ollama's models.

httpx, not litellm: these run from `zizou keys set --validate` and the key wizard, where the 2 s
litellm import would be felt. The key travels in a header, never in the URL, so an error message
that quotes the URL cannot leak it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zizou.errors import ProviderError
from zizou.providers.catalog import (
    OLLAMA_BASE,
    PROVIDERS,
    Auth,
    Provider,
    env_var_for,
    find_provider,
    ollama_base_from_env,
)

if TYPE_CHECKING:
    import httpx

ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class Validation:
    """The outcome of a key check. `rejected` means the provider said the key is bad (as opposed
    to not answering); `status` is the HTTP status, None when nothing answered."""

    ok: bool
    message: str
    status: int | None = None
    rejected: bool = False


def _headers(auth: Auth, key: str) -> dict[str, str]:
    if auth == "bearer":
        return {"Authorization": f"Bearer {key}"}
    if auth == "anthropic":
        return {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION}
    if auth == "google":
        return {"x-goog-api-key": key}
    return {}


def _get(url: str, headers: dict[str, str], timeout: float) -> httpx.Response:
    import httpx

    with httpx.Client(timeout=timeout, follow_redirects=False) as client:
        return client.get(url, headers={"Accept": "application/json", **headers})


def _reason(exc: Exception) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _entry(provider: str, api_base: str | None) -> Provider | None:
    entry = find_provider(provider)
    if entry is None and api_base is not None:  # any OpenAI-compatible server
        entry = Provider(
            provider, provider, env_var_for(provider), "", api_base, "/models", "bearer"
        )
    return entry


def _judge(entry: Provider, url: str, response: httpx.Response) -> Validation:
    status = response.status_code
    if 200 <= status < 300:
        if not entry.needs_key:
            models = _model_names(response)
            return Validation(True, f"{entry.name} answers at {url} ({len(models)} models)", status)
        return Validation(True, f"{entry.name} accepted the key", status)
    if entry.needs_key and status in entry.rejects:
        where = f", or create a new one at {entry.key_url}" if entry.key_url else ""
        message = f"{entry.name} rejected the key (HTTP {status}): check it{where}"
        return Validation(False, message, status, rejected=True)
    return Validation(False, f"could not check the key: {url} answered HTTP {status}", status)


def validate_key(
    provider: str, key: str | None, api_base: str | None = None, timeout: float = 10
) -> Validation:
    """Check `key` for `provider` with one cheap GET (the model list, or OpenRouter's key info).
    `api_base` replaces the provider's usual address (a proxy, a local server, a test server).
    For Ollama, which needs no key, it checks that the server answers."""
    entry = _entry(provider, api_base)
    if entry is None:
        known = ", ".join(p.id for p in PROVIDERS)
        return Validation(False, f"zizou cannot check keys for {provider}; it checks {known}")
    if entry.needs_key and not key:
        return Validation(False, f"there is no key to check for {entry.name}")
    base = api_base or (ollama_base() if entry.id == "ollama" else entry.base_url)
    url = base.rstrip("/") + entry.check_path
    import httpx

    try:
        response = _get(url, _headers(entry.auth, key or ""), timeout)
    except httpx.HTTPError as exc:
        return Validation(False, f"could not reach {entry.name} at {url}: {_reason(exc)}")
    return _judge(entry, url, response)


def _model_names(response: httpx.Response) -> list[str]:
    try:
        data: Any = response.json()
    except ValueError:
        return []
    models = data.get("models") if isinstance(data, dict) else None
    names = [m.get("name") for m in models or [] if isinstance(m, dict)]
    return [n for n in names if isinstance(n, str)]


def ollama_base(base_url: str | None = None) -> str:
    """Ollama's native address: `base_url` without an OpenAI-style "/v1", else the one the
    environment gives (`OLLAMA_BASE_URL`, `OLLAMA_API_BASE`, `OLLAMA_HOST`), else the default."""
    base = base_url or ollama_base_from_env(os.environ) or OLLAMA_BASE
    return base.rstrip("/").removesuffix("/v1")


def list_ollama_models(base_url: str | None = None, timeout: float = 5) -> list[str]:
    """The models an Ollama server has pulled (GET /api/tags), for the wizard's model picker."""
    import httpx

    base = ollama_base(base_url)
    try:
        response = _get(f"{base}/api/tags", {}, timeout)
        response.raise_for_status()
    except httpx.HTTPError as exc:
        raise ProviderError(
            f"Ollama is not reachable at {base} ({_reason(exc)}): start it with `ollama serve`, "
            "or give the address it listens on"
        ) from exc
    return _model_names(response)


__all__ = ["Validation", "list_ollama_models", "ollama_base", "validate_key"]
