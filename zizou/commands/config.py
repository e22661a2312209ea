"""`zizou config [flags]`: the options a run would get, and where each one came from.

It resolves the options exactly as `zizou` and `zizou -p` do (`resolve_options`), from the same
flags, so a surprise ("why 15 steps?", "which model?") is answered without starting a run. Keys
are shown masked, and every line goes through the redactor. Imported only when the user types
`zizou config`.
"""

from __future__ import annotations

from typing import Any

import click

from zizou.cli import run_flags
from zizou.config.option_rows import option_rows, origin_of
from zizou.config.options import resolve_options
from zizou.redact import Redactor, loaded_secrets
from zizou.start import flags_from


@click.command("config", context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--sources",
    is_flag=True,
    help="List the files read for instructions, commands, agents, hooks and rules instead.",
)
@run_flags
def config_command(sources: bool, **run: Any) -> None:
    """Print the options in effect and where each came from: a flag, the environment, the
    project (rules saved for it), the user config (config.toml) or the default. With
    --sources: every file of other agents' setups zizou reads here, and what it left out."""
    options = resolve_options(flags_from(run))
    if sources:
        from zizou.config.setup_report import setup_report

        click.echo(Redactor(loaded_secrets()).redact(setup_report(options.root)).rstrip())
        return
    rows = [("SETTING", "VALUE", "FROM"), *option_rows(options)]
    redactor = Redactor(loaded_secrets())
    width = max(len(row[0]) for row in rows)
    value_width = min(48, max(len(row[1]) for row in rows))
    for name, value, origin in rows:
        line = f"{name:<{width}}  {value:<{value_width}}  {origin}".rstrip()
        click.echo(redactor.redact(line))
    for warning in options.warnings:
        click.echo(f"\nnote: {redactor.redact(warning)}")


__all__ = ["config_command", "option_rows", "origin_of"]
