"""Turn `--model`, `--api-base` and the user's keys into a Model, or a UsageError naming the fix."""

from __future__ import annotations

import os

from zizou.core.protocols import Model
from zizou.errors import UsageError

DEFAULT_MODEL = "openai/gpt-4o"


def default_model_id() -> str:
    return os.environ.get("ZIZOU_MODEL") or DEFAULT_MODEL


def open_model(model_id: str | None, api_base: str | None, api_key: str | None = None) -> Model:
    """The model, with its key from the flag or the provider's env var. A custom `--api-base`
    (a local server) may need no key."""
    from zizou.providers import env_var_for, key_from_env, make_model, provider_of

    model_id = model_id or default_model_id()
    key = api_key or key_from_env(model_id, os.environ)
    var = env_var_for(provider_of(model_id))
    if key is None and var is not None and api_base is None:
        raise UsageError(
            f"no key for {provider_of(model_id)}: set {var}, or pass --api-base for a local "
            "server that needs none"
        )
    return make_model(model_id, api_base, key or ("no-key" if api_base else None))
