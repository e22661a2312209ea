"""`zizou acp`: the command an editor starts to run zizou as its agent (see the README's
"zizou in your editor"). It takes the run flags `zizou -p` takes; each session's project is
the `cwd` the editor gives, and the session itself comes from the editor (new or loaded)."""

from __future__ import annotations

from typing import Any

import click

from zizou.cli import run_flags
from zizou.errors import UsageError
from zizou.start import flags_from


@click.command("acp", context_settings={"help_option_names": ["-h", "--help"]})
@run_flags
def acp(**run: Any) -> int:
    """Serve the Agent Client Protocol on stdin/stdout, for editors (Zed, JetBrains, Neovim,
    Emacs...). Stdout carries protocol messages only; logs go to stderr and zizou-debug.log."""
    if run.get("continue_last") or run.get("resume") or run.get("cwd"):
        raise UsageError(
            "the editor chooses the project and the session (session/new, session/load): "
            "drop -C, -c and -r"
        )
    from zizou.acp.server import serve

    return serve(flags_from(run))


__all__ = ["acp"]
