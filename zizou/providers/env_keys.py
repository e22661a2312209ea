"""Which provider a model id belongs to, and which environment variable holds its key.

A stopgap until the key store (config/keys.py) lands: it knows only environment variables, and
it never imports litellm, so it is cheap to call on the way to the first frame.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

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

_ENV_VARS: dict[str, str | None] = {
    "openai": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
    "gemini": "GEMINI_API_KEY",
    "groq": "GROQ_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "ollama": None,
    "ollama_chat": None,
}


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
    Unlisted providers follow litellm's usual `<PROVIDER>_API_KEY` convention."""
    if provider in _ENV_VARS:
        return _ENV_VARS[provider]
    return re.sub(r"[^A-Z0-9]+", "_", provider.upper()) + "_API_KEY"


def key_from_env(model_id: str, environ: Mapping[str, str]) -> str | None:
    """The key for the model's provider from `environ`, or None when unset or blank."""
    var = env_var_for(provider_of(model_id))
    if var is None:
        return None
    return environ.get(var, "").strip() or None


__all__ = ["env_var_for", "key_from_env", "provider_of"]
