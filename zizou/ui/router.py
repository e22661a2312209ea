"""Where what the user sends goes: an edit of a queued message, a `!command`, a `/command` (typed,
picked in the palette, or an `@file` to open in the workspace), or a message for the model (the
files it names as `@PATH` are opened as its turn starts: see `TurnController`).

A command sent before the session is ready waits for it in a worker, so the app's own messages
(among them the one that says the session is open) keep flowing meanwhile.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from zizou.contracts.file_commands import FileCommand
from zizou.ui.slash import classify, commands, file_commands, trailing_command
from zizou.ui.slash_registry import SlashCommand

if TYPE_CHECKING:
    from zizou.ui.host import Host, Notices
    from zizou.ui.opening import Opening
    from zizou.ui.shell import UserShell
    from zizou.ui.slash_commands import SlashCommands
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.composer import Composer


class InputRouter:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        notices: Notices,
        composer: Composer,
        turns: TurnController,
        commands: SlashCommands,
        shell: UserShell,
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.composer = composer
        self.turns = turns
        self.commands = commands
        self.shell = shell

    async def submit(self, text: str, placed: str | None = None) -> None:
        """Route what the user sent: a queued edit, `!command`, `/command`, or a message.
        `placed`: the text the prompt was given (by /undo, say) before the user typed."""
        stripped = text.strip()
        if placed is not None and text != placed and await self._held(text):
            return
        if await self.turns.save_edit(text):
            return
        if not stripped:
            await self.turns.resume_queue()
        elif stripped.startswith("!"):
            await self.when_ready(self.shell.run(stripped[1:].strip()))
        elif (parsed := classify(stripped, self.opening.root)).kind == "command":
            await self.when_ready(self.commands.run(parsed.name, parsed.args, parsed.raw))
        elif parsed.kind == "unknown" and self._prepared_later(parsed.name):
            await self._message(text)  # the turn's `prepare` expands it
        elif parsed.kind == "unknown":
            hint = f" Did you mean /{parsed.suggestion}?" if parsed.suggestion else ""
            await self.notices.add_notice(
                f"Unknown command /{parsed.name}.{hint}", "warning", "/help lists the commands."
            )
        else:
            await self._message(text)

    def _prepared_later(self, name: str) -> bool:
        """An MCP prompt (`/mcp__server__prompt`) or a command file (`/review`)."""
        return name.startswith("mcp__") or file_commands(self.opening.root).get(name) is not None

    async def _held(self, text: str) -> bool:
        """A command typed after the text the prompt was given (`message/redo`) is not sent
        as part of a message: the text goes back in the prompt, and the notice says how to
        run the command, or to send the text as it is (Enter again: it is then as given)."""
        name = trailing_command(text)
        if name is None:
            return False
        self.composer.set_text(text)
        self.composer.focus_prompt()
        await self.notices.add_notice(
            f"Not sent: /{name} was typed after the text in the prompt, and a command runs only "
            "on its own.",
            "warning",
            f"To run /{name}, empty the prompt (Ctrl+U empties a line) and send /{name}; "
            "to send the text as it is, press Enter again.",
        )
        return True

    async def _message(self, text: str) -> None:
        if self.turns.busy or len(self.turns.queue):
            await self.turns.add(text)
        else:
            await self.turns.start(text)

    async def open_file(self, path: str) -> None:
        """An `@file` completion was accepted: open the whole file in the workspace."""
        await self.when_ready(self.commands.run("add", [path]))

    def palette_commands(self) -> Iterator[SystemCommand]:
        """The commands for the palette (Ctrl+P). One that needs an argument is put in the
        prompt to finish; the others run."""
        for command in commands():
            yield SystemCommand(command.usage, command.help, partial(self._picked, command))
        for found in file_commands(self.opening.root).commands.values():
            yield SystemCommand(found.usage, found.help, partial(self._picked_file, found))

    async def _picked_file(self, command: FileCommand) -> None:
        """A command file picked in the palette: one that takes arguments is put in the
        prompt to finish; the others are sent."""
        if command.argument_hint:
            self.composer.set_text(f"/{command.name} ")
            self.composer.focus_prompt()
        else:
            await self._message(f"/{command.name}")

    async def _picked(self, command: SlashCommand) -> None:
        if command.args and not command.args.startswith("["):
            self.composer.set_text(f"/{command.name} ")
            self.composer.focus_prompt()
        else:
            await self.when_ready(self.commands.run(command.name, []))

    async def when_ready(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` now if the session is ready, else in a worker once it is."""
        if self.opening.ready:
            await work
        else:
            self.host.run_worker(self._after_ready(work), group="waiting")

    async def _after_ready(self, work: Coroutine[Any, Any, None]) -> None:
        try:
            await self.opening.wait()
        except BaseException:  # the app closed first: the command never runs
            work.close()
            raise
        await work


__all__ = ["InputRouter"]
