"""The MCP SDK is imported only where servers run, never on the path to the first frame or the
first request."""

from __future__ import annotations

import subprocess
import sys


def test_starting_either_front_end_imports_no_part_of_the_mcp_sdk() -> None:
    code = (
        "import sys, zizou.cli, zizou.session, zizou.headless, zizou.ui.app, zizou.commands.mcp;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'anyio', 'httpx2')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
