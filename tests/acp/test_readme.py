"""The README's editor set-up is the command the end-to-end tests start (`acp_harness`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from acp_harness import ACP_COMMAND

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_zed_setup_starts_the_command_the_tests_run() -> None:
    section = README.read_text(encoding="utf-8").split("### zizou in your editor", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None
    server = json.loads(block[1])["agent_servers"]["zizou"]
    assert (server["command"], *server["args"]) == ACP_COMMAND
