"""Turn a model id, `--api-base`, `--api-key` and the user's keys into a Model, or a UsageError
naming the fix: an id litellm cannot route (`providers.model_ids`), or a missing key. Which id a
run starts with is decided in `zizou.config.options`."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from zizou.contracts.protocols import Model
from zizou.errors import UsageError
from zizou.providers.settings import RetrySettings, TimeoutSettings


class MissingKey(UsageError):
    kind: ClassVar[str] = "missing_key"


def open_model(
    model_id: str,
    api_base: str | None,
    api_key: str | None = None,
    warn: Callable[[str], None] | None = None,
    *,
    retry: RetrySettings | None = None,
    timeouts: TimeoutSettings | None = None,
    protocol: str = "auto",
) -> Model:
    """The model, with its key from the resolver (flag, env var, key store; see config.keys).
    A custom `--api-base` (a local server) may need no key. The id is checked first, so a typo
    is named as one before any key is looked up or request made; `warn` hears of an id litellm
    routes but does not list, when a listed one is close. `retry` and `timeouts` are the run's
    (None: their defaults); `protocol` how tools are called (the JSON reply protocol for a
    model without native tool calls)."""
    from zizou.config.keys import missing_key_error, resolve_key
    from zizou.providers import make_model
    from zizou.providers.catalog import needs_key, provider_of
    from zizou.providers.model_ids import check_model_id, model_warning

    check_model_id(model_id, api_base)
    warning = model_warning(model_id, api_base) if warn is not None else None
    if warn is not None and warning:
        warn(warning)
    provider = provider_of(model_id)
    found = resolve_key(provider, flag=api_key)
    if found is None and needs_key(provider) and api_base is None:
        raise MissingKey(str(missing_key_error(provider)))
    key = found.value if found else ("no-key" if api_base else None)
    return make_model(model_id, api_base, key, retry=retry, timeouts=timeouts, protocol=protocol)
