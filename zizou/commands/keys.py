"""`zizou keys list | set PROVIDER | remove PROVIDER`: the command-line face of `config.keys`.

Imported only when the user types `zizou keys`, so the main path stays fast.
"""

from __future__ import annotations

import sys

import click

from zizou.config.keys import (
    clean_key,
    key_environ,
    mask_key,
    no_keyring_error,
    remove_key,
    require_provider,
    resolve_key,
    save_key,
    store_status,
    validate_key,
)
from zizou.config.keys_file import keys_file_path
from zizou.errors import ProviderError, UsageError
from zizou.providers.catalog import PROVIDERS, Provider

ORDER = "zizou takes a key from --api-key, then the provider's env var, then the key store."


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=ORDER)
def keys() -> None:
    """See and manage the API keys zizou uses."""


@keys.command("list")
def list_keys() -> None:
    """Where each provider's key comes from, masked."""
    rows = [("PROVIDER", "SOURCE", "KEY")]
    for entry in PROVIDERS:
        if not entry.needs_key:
            rows.append((entry.id, "no key needed", ""))
            continue
        found = resolve_key(entry.id)
        rows.append((entry.id, found.source, found.masked) if found else (entry.id, "not set", ""))
    widths = [max(len(row[i]) for row in rows) for i in range(2)]
    for provider, source, key in rows:
        click.echo(f"{provider:<{widths[0]}}  {source:<{widths[1]}}  {key}".rstrip())
    status = store_status()
    click.echo(f"\nKey store: {status.detail}.")
    if status.kind == "none":
        click.echo("`zizou keys set PROVIDER --file` keeps a key in a file only you can read.")
    if keys_file_path().exists():
        click.echo(f"Keys file: {keys_file_path()}")


def _read_key(entry: Provider) -> str:
    if sys.stdin.isatty():
        text: str = click.prompt(f"{entry.name} API key", hide_input=True)
        return text
    return sys.stdin.readline()


def _env_note(entry: Provider, verb: str) -> None:
    if entry.env_var and key_environ().get(entry.env_var, "").strip():
        click.echo(f"note: {entry.env_var} is set in this environment and {verb}.", err=True)


@keys.command("set")
@click.argument("provider")
@click.option(
    "--file",
    "use_file",
    is_flag=True,
    help="Keep the key in a private file (0600) in the config dir instead of the OS keyring.",
)
@click.option("--validate", is_flag=True, help="Check the key with one cheap request first.")
@click.option(
    "--api-base", metavar="URL", help="Where --validate checks, if not the usual address."
)
def set_key(provider: str, use_file: bool, validate: bool, api_base: str | None) -> None:
    """Save the key for PROVIDER (typed hidden, or one line on stdin)."""
    entry = require_provider(provider)
    if not entry.needs_key:
        raise UsageError(f"{entry.name} needs no key; point zizou at it with --api-base")
    if not use_file:
        status = store_status()
        if status.kind == "none":
            raise no_keyring_error(entry.id, status.detail)
    key = clean_key(_read_key(entry))
    if validate:
        check = validate_key(entry.id, key, api_base)
        if not check.ok:
            error = UsageError if check.rejected else ProviderError
            raise error(f"{check.message}; the key was not saved")
        click.echo(check.message)
    where = save_key(entry.id, key, "file" if use_file else "keyring")
    click.echo(f"Saved the key for {entry.id} ({mask_key(key)}) in {where}.")
    _env_note(entry, "takes precedence over the stored key")


@keys.command("remove")
@click.argument("provider")
def remove(provider: str) -> None:
    """Delete the stored key for PROVIDER."""
    entry = require_provider(provider)
    places = remove_key(entry.id)
    if places:
        click.echo(f"Removed the key for {entry.id} from {' and '.join(places)}.")
    else:
        click.echo(f"No stored key for {entry.id}.")
    _env_note(entry, "still gives zizou a key; unset it too")


__all__ = ["keys"]
