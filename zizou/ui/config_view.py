"""`/config`: the settings this session started with, and where each came from (a flag, the
environment, the project's saved rules, the user's config.toml, or the default), as
`zizou config` prints them, so a user coming from another agent finds them without leaving the
app. Keys are masked and every line goes through the redactor. What the session changed since
(a `/model` switch, the mode) is in `/status`.
"""

from __future__ import annotations

from zizou.config.option_rows import option_rows
from zizou.config.options import RunOptions
from zizou.config.settings import settings_path
from zizou.redact import Redactor, loaded_secrets

VALUE_WIDTH = 40


def config_text(options: RunOptions) -> str:
    """The settings table, then where to change them."""
    rows = option_rows(options)
    width = max(len(name) for name, _, _ in rows)
    lines = [
        f"{name:<{width}}  {_cut(value):<{VALUE_WIDTH}}  {origin}".rstrip()
        for name, value, origin in rows
    ]
    lines.append("")
    lines.append(
        f"Change them in {settings_path()} (user) or with flags at start-up; `zizou config` "
        "prints this table too, and /status shows what changed since the session started."
    )
    lines += [f"Note: {warning}" for warning in options.warnings]
    redactor = Redactor(loaded_secrets())
    return "\n".join(redactor.redact(line) for line in lines)


def _cut(value: str) -> str:
    return value if len(value) <= VALUE_WIDTH else value[: VALUE_WIDTH - 1] + "…"


__all__ = ["config_text"]
