"""The inline `` !`command` `` of a command file's body (Claude Code's form): each command runs
before the message is sent, and its output takes its place.

The command comes from a file, often one the repository brought, so it is a call like any the
model makes: a `run_bash` call through the session's call runner, with its permission rules
(headless: `--allow run_bash:PREFIX` or `--yes`; the app asks), the hooks' `before_tool`, the
settings' deny rules and the sandbox. A command that is refused or fails leaves a note in its
place, and the user is told why. Only the file's own body is searched: the arguments the user
typed are never run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from zizou.agent.calls import CallRunner
from zizou.contracts.file_commands import FileCommand, load_file_commands, split_command
from zizou.contracts.protocols import ToolCall
from zizou.tools.base import ToolResult

INLINE = re.compile(r"!`([^`\n]+)`")
_STATUS = re.compile(r"\Aexit code 0[^\n]*\n?")  # run_bash's first line, on success
OUTPUT_CHARS = 20_000  # of one command's output put in the message


def file_command_of(root: Path, text: str, reserved: frozenset[str]) -> FileCommand | None:
    """The command file that `text` (`/name args`) runs, if it runs one."""
    found = split_command(text)
    if found is None or found[0].lower() in reserved:
        return None
    return load_file_commands(root, reserved).get(found[0])


def inline_commands(body: str) -> list[str]:
    """The inline commands of a command file's body, each once, in order."""
    return list(dict.fromkeys(match.strip() for match in INLINE.findall(body) if match.strip()))


async def run_inline(
    message: str, command: FileCommand, runner: CallRunner
) -> tuple[str, list[str]]:
    """`message` with the output of each inline command of `command`'s body in its place, and
    a note for each command that did not run."""
    notes: list[str] = []
    for number, text in enumerate(inline_commands(command.body), start=1):
        result = await _run(runner, f"inline-{number}", text)
        if result.ok:
            shown = _STATUS.sub("", result.output, count=1).strip()[:OUTPUT_CHARS]
        else:
            why = result.output.strip().splitlines()[0] if result.output.strip() else "it failed"
            notes.append(f"{command.source}: !`{text}` was not run: {why}")
            shown = f"[!`{text}` was not run: {why}]"
        message = message.replace(f"!`{text}`", shown)
    return message, notes


async def _run(runner: CallRunner, call_id: str, command: str) -> ToolResult:
    call = ToolCall(call_id, "run_bash", json.dumps({"command": command}))
    result: ToolResult | None = None
    async for item in runner.run(runner.parse(call)):
        if isinstance(item, ToolResult):
            result = item
    return result or ToolResult.error("it gave no result")


async def with_inline_output(
    root: Path, text: str, message: str, reserved: frozenset[str], runner: CallRunner
) -> tuple[str, list[str]]:
    """What `text` sends, once the inline commands of the command file it runs (if any) ran:
    `message` is its body as `message_for` made it."""
    command = file_command_of(root, text, reserved)
    if command is None or not inline_commands(command.body):
        return message, []
    return await run_inline(message, command, runner)


__all__ = ["INLINE", "file_command_of", "inline_commands", "run_inline", "with_inline_output"]
