"""`!command`: the user's own shell command, run in the project like run_bash runs the model's
(own process group, secrets removed from the environment, its whole output kept, so a long one
says how many lines the model is shown and names the read_output call for the rest) and shown
in the conversation.

It needs no approval (the user typed it), runs in a worker so the prompt stays live, shows
the latest line it printed under its row as it runs, and Esc kills its whole process group
(the row then keeps what it printed until then). Its output goes into the conversation as a
note from the user, so the model reads it with the next message (as `git status` pasted by
hand would be); a command the user interrupted shares nothing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from functools import partial
from itertools import count
from typing import TYPE_CHECKING

from textual.message import Message

from zizou.contracts.messages import ShellRun
from zizou.env import scrubbed_env
from zizou.tools.jobs.report import finished_text, interrupted_text
from zizou.ui.job_commands import kept_output
from zizou.ui.text import one_line
from zizou.ui.widgets.tool_row import ToolRow

if TYPE_CHECKING:
    from zizou.ui.host import Host
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.chat_view import ChatView

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


def shell_row(command: str) -> ToolRow:
    return ToolRow(
        f"shell-{next(_ids)}",
        "$",
        json.dumps({"command": command}),
        summary=one_line(command, 70),
        show_arguments=False,
    )


LIVE_EVERY_S = 0.1  # the row's line under a chatty command is redrawn at most this often


def live_lines(row: ToolRow) -> Callable[[bytes], None]:
    """Shows the latest line a running command printed under its row, as it prints."""
    last = 0.0
    pending = b""

    def seen(chunk: bytes) -> None:
        nonlocal last, pending
        pending = (pending + chunk)[-4096:]
        now = time.monotonic()
        if now - last >= LIVE_EVERY_S and pending.strip():
            last = now
            row.show_progress(pending.decode(errors="replace"))

    return seen


class UserShell:
    """Runs the user's `!commands` in workers (group "shell", which Esc cancels) and posts
    `Shared` with each result for the model."""

    class Shared(Message):
        def __init__(self, run: ShellRun) -> None:
            super().__init__()
            self.run = run

    def __init__(self, host: Host, opening: Opening, chat: ChatView) -> None:
        self.host = host
        self.opening = opening
        self.chat = chat

    async def run(self, command: str) -> None:
        if not command:
            await self.chat.add_notice("Type a command after `!`, e.g. `!git status`.", "warning")
            return
        row = shell_row(command)
        await self.chat.add(row)
        self.host.run_worker(self._run(command, row), group="shell", exit_on_error=False)

    async def _run(self, command: str, row: ToolRow) -> None:
        started = time.monotonic()
        jobs = self.opening.current.kernel.jobs  # its whole output is kept as the model's are
        try:
            job = await jobs.start(
                command,
                ["bash", "-c", command],
                cwd=self.opening.current.root,
                env=scrubbed_env(os.environ),
                timeout_s=SHELL_TIMEOUT_S,
                on_output=live_lines(row),
            )
        except OSError as err:
            await row.finish(False, f"could not start bash: {err}", time.monotonic() - started)
            return
        try:
            await job.wait()
        except BaseException:  # stopped (Esc): what it printed until then stays in its row
            await job.kill()
            result, cut = interrupted_text(job)
            jobs.finished(job, keep=cut)
            if cut:
                row.full_output = partial(kept_output, jobs, job.id)
            await row.finish(False, result, time.monotonic() - started)
            row.expanded = True
            raise
        result, cut = finished_text(job)
        jobs.finished(job, keep=cut)
        if cut:
            row.full_output = partial(kept_output, jobs, job.id)
        ok = job.exit_code == 0 and job.state == "exited"
        await row.finish(ok, f"{result}\n{SHARED}", time.monotonic() - started)
        row.expanded = True
        self.host.post_message(self.Shared(ShellRun(command=command, result=result, ok=ok)))


__all__ = ["SHARED", "SHELL_TIMEOUT_S", "UserShell", "shell_note", "shell_row"]
