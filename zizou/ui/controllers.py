"""The app's controllers, put together once the first frame is on screen.

The first frame needs only Textual and the app's widgets (`zizou.ui.app`). What acts on them,
the turns, the slash commands and their handlers, model and session switching, modes, hooks,
MCP, undo, decks and `!commands`, imports the session's contracts, pydantic, checkpoints, decks
and hooks: the app imports this module in a thread right after the first frame (which also
declares every slash command, so /help, completion and the palette have them all) and builds
the controllers on first use. A key pressed or a message sent sooner only waits for the import.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from zizou.ui.context_commands import ContextCommands
from zizou.ui.conversations import Conversations
from zizou.ui.deck_commands import DeckCommands
from zizou.ui.hook_commands import HookCommands
from zizou.ui.mcp_commands import McpCommands
from zizou.ui.model_switcher import ModelSwitcher
from zizou.ui.modes import ModeController
from zizou.ui.router import InputRouter
from zizou.ui.shell import UserShell
from zizou.ui.slash import by_name, commands, file_command_message
from zizou.ui.slash_commands import SlashCommands
from zizou.ui.turns import TurnController
from zizou.ui.undo_commands import UndoCommands
from zizou.ui.workspace_commands import WorkspaceCommands

if TYPE_CHECKING:
    from zizou.ui.attention import Attention
    from zizou.ui.host import Host
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.opening import Opening
    from zizou.ui.session import SetupMode
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.composer import Composer
    from zizou.ui.widgets.messages import TypingClock
    from zizou.ui.widgets.queue_panel import QueuePanel
    from zizou.ui.widgets.status_bar import StatusBar


@dataclass(frozen=True)
class Shell:
    """What the app draws on and hands down: its widgets, the session's opening, and the
    settings its controllers take."""

    host: Host
    opening: Opening
    chat: ChatView
    composer: Composer
    queue_panel: QueuePanel
    status: StatusBar
    typing: TypingClock
    attention: Attention
    keys: KeyServices | None = None
    setup: SetupMode = None


class Controllers:
    """Every controller of the app, wired to one another and to the app's widgets."""

    def __init__(self, shell: Shell) -> None:
        host, opening, chat = shell.host, shell.opening, shell.chat
        self.chat = chat
        self.opening = opening
        self.workspace = WorkspaceCommands(opening, chat)
        self.turns = TurnController(
            host,
            opening,
            chat,
            shell.composer,
            shell.queue_panel,
            shell.status,
            prepare=self.prepare,
        )
        self.models = ModelSwitcher(host, opening, chat, shell.status, shell.keys, shell.setup)
        self.conversations = Conversations(host, opening, chat, self.turns, shell.status)
        self.modes = ModeController(host, opening, chat, self.turns, shell.typing)
        self.turns.on_finished = self.modes.turn_done  # the plan gate
        self.turns.attention = shell.attention
        self.hooks = HookCommands(host, opening, chat, shell.typing)
        self.mcp = McpCommands(host, opening, chat, shell.typing)
        owners = [
            self.models,
            self.conversations,
            self.workspace,
            self.modes,
            self.hooks,
            self.mcp,
            ContextCommands(host, opening, chat, self.turns),
            UndoCommands(host, opening, chat, self.turns, shell.composer),
            DeckCommands(host, opening, chat, self.turns),
        ]
        self.commands = SlashCommands(host, opening, chat, owners)
        self.shell = UserShell(host, opening, chat)
        self.router = InputRouter(
            host, opening, chat, shell.composer, self.turns, self.commands, self.shell
        )

    async def prepare(self, text: str) -> str | None:
        """Before a turn: the files the message names open in the workspace, a command file's
        `/name args` becomes its body, and what it names of the MCP servers (a prompt,
        resources) becomes what the model is sent."""
        sent, notes = await asyncio.to_thread(file_command_message, self.opening.root, text)
        for note in notes:
            await self.chat.add_notice(note, "warning")
        if sent != text:  # and the inline `!`command`s of the file, run as the model's are
            kernel = self.opening.current.kernel
            sent, ran = await kernel.with_inline_output(text, sent, frozenset(by_name()))
            for note in ran:
                await self.chat.add_notice(note, "warning")
            return sent
        await self.workspace.open_mentions(self.mcp.without_resources(text))
        return await self.mcp.expand(text)


def declare_commands() -> Callable[[Shell], Controllers]:
    """Import every controller and declare every slash command (run in a thread after the
    first frame); the builder of the controllers."""
    commands()
    return Controllers


__all__ = ["Controllers", "Shell", "declare_commands"]
