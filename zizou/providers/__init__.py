"""Models zizou can talk to: litellm for real providers, a scripted fake for tests.

Importing this package imports nothing heavy: not litellm (that takes ~2 s; the first request
does), and not the model classes either until one is asked for, so that the key resolver, which
needs only the provider catalog, stays cheap at start-up.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from zizou.providers.catalog import env_var_for, key_from_env, provider_of

if TYPE_CHECKING:
    from zizou.core.protocols import Model
    from zizou.providers.fake import ScriptedModel
    from zizou.providers.litellm_model import LiteLLMModel, preload
    from zizou.providers.retry import RetryingModel
    from zizou.providers.settings import RetrySettings, TimeoutSettings

_LAZY = {
    "LiteLLMModel": "zizou.providers.litellm_model",
    "preload": "zizou.providers.litellm_model",
    "RetryingModel": "zizou.providers.retry",
    "ScriptedModel": "zizou.providers.fake",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def make_model(
    model_id: str,
    api_base: str | None = None,
    api_key: str | None = None,
    *,
    retry: RetrySettings | None = None,
    timeouts: TimeoutSettings | None = None,
) -> Model:
    """The Model for `model_id`: litellm under the three timeouts, inside zizou's retry layer
    (None takes the defaults of config.toml's `[retry]` / `[timeouts]`). With a custom
    `api_base`, a bare OpenAI-style name is sent as "openai/<name>", which is how litellm
    reaches any OpenAI-compatible server."""
    from zizou.providers.litellm_model import LiteLLMModel
    from zizou.providers.retry import RetryingModel

    model = model_id.strip()
    if api_base and "/" not in model and provider_of(model) == "openai":
        model = f"openai/{model}"
    inner = LiteLLMModel(model, api_base=api_base, api_key=api_key, timeouts=timeouts)
    return RetryingModel(inner, retry)


__all__ = [
    "LiteLLMModel",
    "RetryingModel",
    "ScriptedModel",
    "env_var_for",
    "key_from_env",
    "make_model",
    "preload",
    "provider_of",
]
