"""The `zizou` command's first lines: `zizou --version` answers before the command line, click
or anything else is imported (a script that checks the version should not wait for them);
`zizou` alone opens the app with every flag at its default, without click (`zizou.start`);
every other command goes on to `zizou.cli`."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["--version"]:
        from zizou import __version__

        sys.stdout.write(f"zizou, version {__version__}\n")
        return
    if not sys.argv[1:]:
        from zizou.start import plain_app

        plain_app()
    from zizou.cli import main as run

    run()


__all__ = ["main"]
