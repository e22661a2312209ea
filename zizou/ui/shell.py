"""`!command`: the user's own shell command, run in the project like run_bash runs the model's
(own process group, secrets removed from the environment) and shown in the conversation.

It needs no approval (the user typed it), runs in a worker so the prompt stays live, and Esc
kills its whole process group. Its output goes into the conversation as a note from the user,
so the model reads it with the next message (as `git status` pasted by hand would be); a
command the user interrupted shares nothing.
"""

from __future__ import annotations

import json
import os
import time
from itertools import count
from typing import TYPE_CHECKING

from zizou.env import scrubbed_env
from zizou.tools.run_bash import run_shell
from zizou.ui.text import one_line
from zizou.ui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from zizou.ui.app import ZizouApp

SHELL_TIMEOUT_S = 600.0
_ids = count(1)


NOTE_HEADER = "I ran a command in the project's shell; its output follows."
SHARED = "(shared with the model)"


def shell_note(command: str, result: str) -> str:
    """What the model is given: the command, then its status line and output."""
    fence = "```"
    while fence in result:
        fence += "`"
    return f"{NOTE_HEADER}\n$ {command}\n{fence}\n{result}\n{fence}"


def read_note(content: str) -> tuple[str, str] | None:
    """The command and result in a message written by `shell_note`; None for other text."""
    header, _, rest = content.partition("\n")
    command, _, body = rest.partition("\n")
    fence = body.partition("\n")[0]
    if header != NOTE_HEADER or not command.startswith("$ ") or not fence.startswith("```"):
        return None
    result = body[len(fence) + 1 :].removesuffix(fence).removesuffix("\n")
    return command[2:], result


def shell_row(command: str) -> ToolRow:
    return ToolRow(
        f"shell-{next(_ids)}",
        "$",
        json.dumps({"command": command}),
        summary=one_line(command, 70),
        show_arguments=False,
    )


async def run_user_command(app: ZizouApp, command: str) -> None:
    if not command:
        await app.chat.add_notice("Type a command after `!`, e.g. `!git status`.", "warning")
        return
    row = shell_row(command)
    await app.chat.add(row)
    app.run_worker(_run(app, command, row), group="shell", exit_on_error=False)


async def _run(app: ZizouApp, command: str, row: ToolRow) -> None:
    started = time.monotonic()
    try:
        outcome = await run_shell(
            command,
            cwd=app.session.root,
            env=scrubbed_env(os.environ),
            timeout_s=SHELL_TIMEOUT_S,
        )
    except OSError as err:
        await row.finish(False, f"could not start bash: {err}", time.monotonic() - started, None)
        return
    except BaseException:
        await row.finish(
            False,
            "interrupted: the command and everything it started were stopped",
            time.monotonic() - started,
            None,
        )
        raise
    if outcome.timed_out:
        status = f"timed out after {SHELL_TIMEOUT_S:.0f} s; process group killed"
    else:
        status = f"exit code {outcome.exit_code}"
    result = f"{status}\n{outcome.output.rstrip()}"
    await row.finish(
        outcome.exit_code == 0 and not outcome.timed_out,
        f"{result}\n{SHARED}",
        time.monotonic() - started,
        None,
    )
    row.expanded = True
    app.turns.share(shell_note(command, result))


__all__ = ["SHARED", "SHELL_TIMEOUT_S", "read_note", "run_user_command", "shell_note", "shell_row"]
