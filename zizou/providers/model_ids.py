"""Whether litellm can route a model id, decided before any request.

litellm routes "PROVIDER/MODEL" for every provider it knows, whatever the model, and a bare name
("gpt-4o") only when its model map lists it. Anything else fails inside litellm as a 400 that
reads like the provider's answer, although nothing was sent. So an unknown provider or an
unlisted bare name is a usage error here, with the nearest known name (difflib); a known
provider's model the map does not list is let through (the map lags behind the providers), with
a warning when a listed name is close; if the provider then answers that it has no such model,
that answer is the usage error (`providers.errors.UnknownModelAnswer`, exit code 2).

litellm is never imported (that takes ~2 s): the providers it reaches are read from files it
ships (its model map, its endpoint table, its OpenAI-compatible provider list, and the
`LlmProviders` enum, read as text). When they are missing, nothing is called unknown.
"""

from __future__ import annotations

import difflib
import json
import re
from functools import cache
from typing import Any, ClassVar

from zizou.errors import UsageError
from zizou.paths import installed_package_file
from zizou.providers.catalog import (
    PROVIDERS,
    find_provider,
    local_model_map,
    model_info,
    provider_of,
)

# Catalog providers whose bare names litellm routes by its map ("gpt-4o", "claude-sonnet-4-5").
BARE_ROUTED = ("openai", "anthropic")
SEE_MODELS = "see `zizou models`"
SEPARATORS = ("-", ".", ":", "@", "_")  # what follows a model name in a longer, unlisted one
EXTENDS_BONUS = 0.1  # "gpt-4o" for "gpt-4o-typo", though "gpt-4-turbo" is as close by ratio
_MAP_PROVIDER = re.compile(r"[a-z0-9_]+\Z")  # the map also holds labels such as "vertex_ai-..."
_PROVIDER = re.compile(r"[a-z0-9][a-z0-9_.-]*\Z")
_ENUM_VALUE = re.compile(r'^    [A-Z0-9_]+ = "([^"]+)"', re.MULTILINE)


class UnknownModel(UsageError):
    kind: ClassVar[str] = "unknown_model"


class UnknownProvider(UsageError):
    kind: ClassVar[str] = "unknown_provider"


@cache
def litellm_providers() -> frozenset[str]:
    """The provider prefixes litellm routes ("deepseek" of "deepseek/deepseek-chat"), from the
    files it ships; empty when litellm is not installed."""
    names = {
        str(entry.get("litellm_provider"))
        for entry in local_model_map().values()
        if isinstance(entry, dict) and _MAP_PROVIDER.match(str(entry.get("litellm_provider")))
    }
    names.update(_json_keys(["provider_endpoints_support_backup.json"], "providers"))
    names.update(_json_keys(["llms", "openai_like", "providers.json"], None))
    names.update(_enum_values())
    return frozenset(name for name in names if _PROVIDER.match(name))


def _json_keys(parts: list[str], field: str | None) -> set[str]:
    path = installed_package_file("litellm", *parts)
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8")) if path else {}
    except (OSError, ValueError):
        return set()
    data = data.get(field, {}) if field and isinstance(data, dict) else data
    return {str(key) for key in data} if isinstance(data, dict) else set()


def _enum_values() -> set[str]:
    path = installed_package_file("litellm", "types", "utils.py")
    try:
        text = path.read_text(encoding="utf-8") if path else ""
    except OSError:
        return set()
    start = text.find("class LlmProviders(")
    if start < 0:
        return set()
    body = text[start:]
    end = re.compile(r"^\S", re.MULTILINE).search(body, 1)  # the next top-level statement
    return set(_ENUM_VALUE.findall(body[: end.start()] if end else body))


def known_providers() -> list[str]:
    """Every provider prefix a model id may start with: the catalog's first, then litellm's."""
    catalog = [p.id for p in PROVIDERS]
    return catalog + sorted(litellm_providers() - set(catalog))


def is_known_provider(name: str) -> bool:
    if find_provider(name) is not None:
        return True
    known = litellm_providers()
    return not known or name.lower() in known


def chat_models(provider: str) -> list[str]:
    """The chat models litellm's map lists for `provider`, as ids ("deepseek/deepseek-chat")."""
    entry = find_provider(provider)
    owner = entry.id if entry else provider.lower()
    found = set()
    for key, value in local_model_map().items():
        chat = isinstance(value, dict) and value.get("mode") == "chat"
        if chat and value.get("litellm_provider") == owner:
            found.add(key if key.startswith(f"{owner}/") else f"{owner}/{key}")
    return sorted(found)


def check_model_id(model_id: str, api_base: str | None = None) -> None:
    """UnknownProvider / UnknownModel when litellm cannot route `model_id`. With `api_base` (an
    OpenAI-compatible server) a bare name goes too: it is sent as openai/NAME. A catalog
    provider's id is decided without reading a file."""
    model_id = model_id.strip()
    provider, slash, name = model_id.partition("/")
    if slash and not is_known_provider(provider):
        raise UnknownProvider(unknown_provider_message(provider, model_id))
    if slash and not name.strip():
        raise UnknownModel(f"{model_id} names no model: give {provider}/MODEL; {SEE_MODELS}")
    if slash or (api_base and provider_of(model_id) == "openai") or not local_model_map():
        return
    if not _bare_listed(model_id):
        raise UnknownModel(_unknown_model(model_id))


def model_warning(model_id: str, api_base: str | None = None) -> str | None:
    """For an id litellm routes but its map does not list, when a listed name is close (and no
    `api_base` says the server is the user's own): a warning naming it; else None."""
    provider, slash, name = model_id.strip().partition("/")
    if not slash or api_base or not local_model_map() or model_info(model_id) is not None:
        return None
    close = closest(name, {m.partition("/")[2]: m for m in chat_models(provider)})
    if close is None:
        return None
    return (
        f"{model_id} is not among the {provider} models litellm lists; did you mean {close}? "
        f"(`zizou models {provider}` lists them)"
    )


def _bare_listed(name: str) -> bool:
    entry = local_model_map().get(name)
    return isinstance(entry, dict) and bool(entry.get("litellm_provider"))


def _unknown_model(name: str) -> str:
    candidates: dict[str, str] = {}
    for provider in PROVIDERS:
        for model in chat_models(provider.id):
            candidates.setdefault(model.partition("/")[2], model)
    for provider_id in BARE_ROUTED:  # these route bare, so suggest them as typed
        candidates.update(
            {m.partition("/")[2]: m.partition("/")[2] for m in chat_models(provider_id)}
        )
    close = closest(name, candidates)
    if close is not None:
        return f"unknown model {name}: did you mean {close}? {SEE_MODELS}"
    return (
        f"unknown model {name}: give it with its provider as litellm names it (ollama_chat/{name}, "
        f"or openai/{name} with --api-base for an OpenAI-compatible server); {SEE_MODELS}"
    )


def unknown_provider_message(provider: str, model_id: str | None = None) -> str:
    known = known_providers()
    catalog = ", ".join(p.id for p in PROVIDERS)
    close = closest(provider.lower(), {p: p for p in known})
    where = f" in {model_id}" if model_id else ""
    hint = f"did you mean {close}? " if close else ""
    return (
        f"unknown provider {provider}{where}: {hint}known providers are {catalog} and "
        f"{len(known) - len(PROVIDERS)} more that litellm reaches; `zizou models` lists them all"
    )


def closest(word: str, candidates: dict[str, str]) -> str | None:
    """The id of the candidate name nearest `word` by difflib's ratio, where a name that `word`
    extends ("gpt-4o" of "gpt-4o-typo") counts as nearer and is always a candidate; None when
    nothing is close."""

    def extends(name: str) -> bool:
        return word.startswith(name) and word[len(name) : len(name) + 1] in SEPARATORS

    scored = []
    for name in sorted(candidates):
        ratio = difflib.SequenceMatcher(None, word, name).ratio()
        if extends(name):
            scored.append((ratio + EXTENDS_BONUS, name))
        elif ratio >= 0.6:
            scored.append((ratio, name))
    return candidates[max(scored)[1]] if scored else None


__all__ = [
    "UnknownModel",
    "UnknownProvider",
    "chat_models",
    "check_model_id",
    "closest",
    "is_known_provider",
    "known_providers",
    "litellm_providers",
    "model_warning",
    "unknown_provider_message",
]
