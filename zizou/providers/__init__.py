"""Models zizou can talk to: litellm for real providers, a scripted fake for tests.

Importing this package imports nothing heavy: not litellm (that takes ~2 s; the first request
does), and not the model classes either until one is asked for, so that the key resolver, which
needs only the provider catalog, stays cheap at start-up.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zizou.providers.catalog import env_var_for, key_from_env, ollama_base_from_env, provider_of

if TYPE_CHECKING:
    from zizou.contracts.protocols import Model
    from zizou.providers.fake import ScriptedModel
    from zizou.providers.json_protocol import JsonProtocolModel, uses_json_protocol, with_protocol
    from zizou.providers.litellm_model import LiteLLMModel, preload
    from zizou.providers.retry import RetryingModel
    from zizou.providers.settings import RetrySettings, TimeoutSettings

OLLAMA_ROUTES = ("ollama", "ollama_chat")  # litellm's two routes to an Ollama server

_LAZY = {
    "JsonProtocolModel": "zizou.providers.json_protocol",
    "uses_json_protocol": "zizou.providers.json_protocol",
    "with_protocol": "zizou.providers.json_protocol",
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
    protocol: str = "auto",
    environ: Mapping[str, str] | None = None,
) -> Model:
    """The Model for `model_id`: litellm under the three timeouts, speaking `protocol` (native
    tool calls, or the JSON reply protocol; see providers/json_protocol.py), inside zizou's
    retry layer (None takes the defaults of config.toml's `[retry]` / `[timeouts]`). With a
    custom `api_base`, a bare OpenAI-style name is sent as "openai/<name>", which is how litellm
    reaches any OpenAI-compatible server; without one, an Ollama model goes to the address the
    environment gives (`OLLAMA_BASE_URL`, `OLLAMA_API_BASE`, `OLLAMA_HOST`), if any."""
    import os

    from zizou.providers.json_protocol import with_protocol
    from zizou.providers.litellm_model import LiteLLMModel
    from zizou.providers.retry import RetryingModel

    model = model_id.strip()
    if api_base and "/" not in model and provider_of(model) == "openai":
        model = f"openai/{model}"
    if api_base is None and provider_of(model) in OLLAMA_ROUTES:
        api_base = ollama_base_from_env(os.environ if environ is None else environ)
    inner = LiteLLMModel(model, api_base=api_base, api_key=api_key, timeouts=timeouts)
    return RetryingModel(with_protocol(inner, model, protocol), retry)


__all__ = [
    "JsonProtocolModel",
    "LiteLLMModel",
    "RetryingModel",
    "ScriptedModel",
    "env_var_for",
    "key_from_env",
    "make_model",
    "preload",
    "provider_of",
    "uses_json_protocol",
    "with_protocol",
]
