"""`zizou acp` adds no work to the start-up of the app or `zizou -p`: nothing of it, nor of
the ACP SDK, is imported on their way."""

from __future__ import annotations

import subprocess
import sys


def test_the_cli_imports_neither_zizou_acp_nor_the_sdk() -> None:
    code = (
        "import sys, zizou.cli, zizou.headless, zizou.session;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'acp' or"
        " m.startswith('zizou.acp')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_zizou_acp_is_a_subcommand() -> None:
    from zizou.cli import SUBCOMMANDS, _command_for

    assert SUBCOMMANDS["acp"] == "zizou.commands.acp:acp"
    assert _command_for(["acp"]).name == "acp"
