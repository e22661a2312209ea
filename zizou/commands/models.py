"""`zizou models [PROVIDER]`: the model ids zizou can be given, as `/models` lists them in the
app: the chat models litellm's local map lists, with their context window and prices.

The error for an unknown model or provider points here. Imported only when the user types
`zizou models`, and litellm is never imported: the map is read as JSON.
"""

from __future__ import annotations

import textwrap

import click

from zizou.providers.catalog import PROVIDERS, ModelInfo, find_provider, model_info
from zizou.providers.model_ids import (
    UnknownProvider,
    chat_models,
    is_known_provider,
    known_providers,
    unknown_provider_message,
)

EPILOG = """\b
Give a model to zizou as listed: zizou -p "..." --model anthropic/claude-sonnet-4-5
Any provider litellm reaches works with a model it names (PROVIDER/MODEL), listed here or not;
an OpenAI-compatible server takes --model openai/NAME --api-base URL."""


@click.command("models", context_settings={"help_option_names": ["-h", "--help"]}, epilog=EPILOG)
@click.argument("provider", required=False)
def models(provider: str | None) -> None:
    """List the models of zizou's providers, or of one PROVIDER litellm reaches."""
    if provider is not None:
        _one_provider(provider)
        return
    for entry in PROVIDERS:
        click.echo(f"{entry.id} ({entry.name}; default {entry.default_model})")
        _rows(entry.id)
        click.echo()
    others = [name for name in known_providers() if find_provider(name) is None]
    if others:
        click.echo(f"Other providers litellm reaches ({len(others)}); `zizou models PROVIDER`:")
        click.echo(
            textwrap.fill(", ".join(others), width=96, initial_indent="  ", subsequent_indent="  ")
        )


def _one_provider(provider: str) -> None:
    if not is_known_provider(provider):
        raise UnknownProvider(unknown_provider_message(provider))
    _rows(provider)


def _rows(provider: str) -> None:
    model_ids = chat_models(provider)
    if not model_ids:
        click.echo(f"  litellm's map lists none: give {provider}/MODEL as the provider names it")
        return
    width = max(len(model_id) for model_id in model_ids)
    for model_id in model_ids:
        click.echo(f"  {model_id:<{width}}  {describe(model_info(model_id))}".rstrip())


def describe(info: ModelInfo | None) -> str:
    """ "128k context · $2.50/$10.00 per M tokens"; "" when the map says neither."""
    if info is None:
        return ""
    parts = []
    window = info.context_window
    if window:
        parts.append(f"{window // 1000}k context" if window >= 1000 else f"{window} context")
    price_in, price_out = info.input_cost_per_token, info.output_cost_per_token
    if price_in is not None and price_out is not None:
        parts.append(f"${price_in * 1e6:.2f}/${price_out * 1e6:.2f} per M tokens")
    return " · ".join(parts)


__all__ = ["describe", "models"]
