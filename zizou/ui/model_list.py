"""The models `/models` offers: the current one, each provider's default, and for providers that
have a key, the chat models litellm's local model map lists for them, with their context window
and prices. The map is read as JSON (litellm itself is never imported here), once per process;
callers run `model_entries` in a thread."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from zizou.providers.catalog import (
    PROVIDERS,
    Provider,
    find_provider,
    local_model_map,
    provider_of,
)


@dataclass(frozen=True)
class ModelEntry:
    model_id: str
    note: str


def describe(entry: Mapping[str, Any] | None) -> str:
    """ "128k context · $2.50/$10.00 per M tokens" from a model map entry; "" when unknown."""
    if not entry:
        return ""
    parts = []
    window = entry.get("max_input_tokens")
    if isinstance(window, int) and window > 0:
        parts.append(f"{window // 1000}k context" if window >= 1000 else f"{window} context")
    price_in, price_out = entry.get("input_cost_per_token"), entry.get("output_cost_per_token")
    if isinstance(price_in, int | float) and isinstance(price_out, int | float):
        parts.append(f"${price_in * 1e6:.2f}/${price_out * 1e6:.2f} per M tokens")
    return " · ".join(parts)


def _lookup(table: Mapping[str, Any], model_id: str) -> Mapping[str, Any] | None:
    prefix, _, bare = model_id.partition("/")
    for key in (model_id, bare):
        entry = table.get(key)
        if isinstance(entry, dict) and (key == model_id or entry.get("litellm_provider") == prefix):
            return entry
    return None


def provider_models(table: Mapping[str, Any], provider: Provider) -> list[str]:
    """The chat models the map lists for `provider`, as zizou names them ("openai/gpt-4o")."""
    found = set()
    for key, entry in table.items():
        if not isinstance(entry, dict) or entry.get("mode") != "chat":
            continue
        if entry.get("litellm_provider") != provider.id:
            continue
        found.add(key if key.startswith(f"{provider.id}/") else f"{provider.id}/{key}")
    return sorted(found)


def model_entries(
    current: str, has_key: Callable[[Provider], bool], table: Mapping[str, Any]
) -> list[ModelEntry]:
    """Current first, then each provider's default, then the keyed providers' other models."""
    owner = find_provider(provider_of(current))
    entries = {current: ModelEntry(current, _note(table, current, "● current", None))}
    for provider in PROVIDERS:
        model = provider.default_model
        if model not in entries:
            missing = None if has_key(provider) else provider
            entries[model] = ModelEntry(model, _note(table, model, "default", missing))
    for provider in PROVIDERS:
        if provider.needs_key and (has_key(provider) or provider is owner):
            for model in provider_models(table, provider):
                entries.setdefault(model, ModelEntry(model, describe(_lookup(table, model))))
    return list(entries.values())


def _note(table: Mapping[str, Any], model_id: str, tag: str, missing_key: Provider | None) -> str:
    parts = [tag, describe(_lookup(table, model_id))]
    if missing_key is not None:
        parts.append(f"no key yet (set {missing_key.env_var}, or pick it to add one)")
    return " · ".join(p for p in parts if p)


__all__ = ["ModelEntry", "describe", "local_model_map", "model_entries", "provider_models"]
