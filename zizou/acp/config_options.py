"""The session's settings an editor can change (`configOptions`, `session/set_config_option`):
the model, and the mode again for editors that show settings rather than modes.

The models offered are those the app's `/models` lists for providers zizou has a key for (the
current one first, each provider's default, the chat models litellm's local map lists); one
without a key is left out, since picking it would only fail. A switch holds from the next
request on, as `/model` in the app; the conversation goes on."""

from __future__ import annotations

from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
)

from zizou.hooks.modes import MODES

ConfigOption = SessionConfigOptionSelect | SessionConfigOptionBoolean
MODEL_OPTION = "model"
MODE_OPTION = "mode"
MODE_NAMES = {"build": "Build: reads, edits and runs commands", "plan": "Plan: read-only"}


def model_choices(current: str) -> list[SessionConfigSelectOption]:
    """The models the editor may pick (it reads the key store and the model map: call it in a
    thread)."""
    from zizou.config.keys import resolve_key
    from zizou.providers.catalog import Provider, find_provider, provider_of
    from zizou.ui.model_list import local_model_map, model_entries

    keyed: dict[str, bool] = {}  # the key store is asked once a provider

    def has_key(provider: Provider) -> bool:
        if provider.id not in keyed:
            keyed[provider.id] = not provider.needs_key or resolve_key(provider.id) is not None
        return keyed[provider.id]

    choices = []
    for entry in model_entries(current, has_key, local_model_map()):
        provider = find_provider(provider_of(entry.model_id))
        if entry.model_id == current or provider is None or has_key(provider):
            model, note = entry.model_id, entry.note or None
            choices.append(SessionConfigSelectOption(value=model, name=model, description=note))
    return choices


def config_options(
    model: str, mode: str, models: list[SessionConfigSelectOption]
) -> list[ConfigOption]:
    """The model and the mode, as the editor shows them."""
    modes = [SessionConfigSelectOption(value=m, name=MODE_NAMES.get(m, m)) for m in MODES]
    return [
        SessionConfigOptionSelect(
            id=MODEL_OPTION,
            name="Model",
            description="The model of the requests from the next one on",
            category="model",
            type="select",
            current_value=model,
            options=models,
        ),
        SessionConfigOptionSelect(
            id=MODE_OPTION,
            name="Mode",
            category="mode",
            type="select",
            current_value=mode,
            options=modes,
        ),
    ]


__all__ = ["MODEL_OPTION", "MODE_OPTION", "ConfigOption", "config_options", "model_choices"]
