"""Models zizou can talk to: litellm for real providers, a scripted fake for tests.

Importing this package does not import litellm (that takes ~2 s); the first request does.
"""

from __future__ import annotations

from zizou.core.protocols import Model
from zizou.providers.env_keys import env_var_for, key_from_env, provider_of
from zizou.providers.fake import ScriptedModel
from zizou.providers.litellm_model import LiteLLMModel, preload


def make_model(
    model_id: str, api_base: str | None = None, api_key: str | None = None, timeout_s: float = 600
) -> Model:
    """The Model for `model_id`. With a custom `api_base`, a bare OpenAI-style name is sent as
    "openai/<name>", which is how litellm reaches any OpenAI-compatible server."""
    model = model_id.strip()
    if api_base and "/" not in model and provider_of(model) == "openai":
        model = f"openai/{model}"
    return LiteLLMModel(model, api_base=api_base, api_key=api_key, timeout_s=timeout_s)


__all__ = [
    "LiteLLMModel",
    "ScriptedModel",
    "env_var_for",
    "key_from_env",
    "make_model",
    "preload",
    "provider_of",
]
