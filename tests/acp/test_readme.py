"""The README's editor set-ups (Zed, JetBrains, CodeCompanion, agent-shell) all start the command
the end-to-end tests start (`acp_harness`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from acp_harness import ACP_COMMAND

README = Path(__file__).resolve().parents[2] / "README.md"


def section() -> str:
    text = README.read_text(encoding="utf-8").split("### zizou in your editor", 1)[1]
    return text.split("\n### ", 1)[0]


def test_the_zed_and_jetbrains_setups_start_the_command_the_tests_run() -> None:
    blocks = re.findall(r"```json\n(.*?)```", section(), re.DOTALL)
    assert len(blocks) == 2  # Zed's settings.json, then JetBrains' acp.json
    for block in blocks:
        server = json.loads(block)["agent_servers"]["zizou"]
        assert (server["command"], *server["args"]) == ACP_COMMAND


def test_the_neovim_and_emacs_setups_start_the_command_the_tests_run() -> None:
    [lua] = re.findall(r"```lua\n(.*?)```", section(), re.DOTALL)
    [command] = re.findall(r"commands = \{ default = \{ (.*?) \} \}", lua)
    assert tuple(json.loads(f"[{command}]")) == ACP_COMMAND
    [elisp] = re.findall(r"```elisp\n(.*?)```", section(), re.DOTALL)
    program = re.search(r':command "(.*?)"', elisp)
    params = re.search(r":command-params '\((.*?)\)", elisp)
    assert program is not None and params is not None
    assert (program[1], *json.loads(f"[{params[1].replace(' ', ', ')}]")) == ACP_COMMAND
