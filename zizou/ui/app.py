"""The full-screen app: a conversation, a composer, a queue, a sidebar and a status line.

The app composes; it owns no business logic. It builds the widgets and hands them down to the
controllers that hold the logic (`TurnController`, `SlashCommands`, `ModelSwitcher`,
`Conversations`, `WorkspaceCommands`, `ModeController`, `HookCommands`, `UserShell`,
`InputRouter`, `FocusRouter`, `Opening`), then routes to them what comes up: the widgets'
messages, the controllers' requests (`zizou.ui.host`), the session state's changes, key bindings
and worker events. Slow work runs in the controllers' workers, so the prompt stays live.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker

from zizou.config.settings import NotifySettings
from zizou.ui.app_keys import KeyedApp
from zizou.ui.approver import TuiApprover
from zizou.ui.attention import Attention
from zizou.ui.completion import Completer
from zizou.ui.context_commands import ContextCommands
from zizou.ui.conversations import TAGLINE, Conversations
from zizou.ui.deck_commands import DeckCommands
from zizou.ui.early_keys import typed_lines
from zizou.ui.focus import FocusRouter
from zizou.ui.hook_commands import HookCommands
from zizou.ui.host import QuitRequested, SessionChanged, ShowScreen
from zizou.ui.mcp_commands import McpChanged, McpCommands
from zizou.ui.message_queue import MessageQueue
from zizou.ui.model_switcher import ModelSwitcher
from zizou.ui.modes import ModeController
from zizou.ui.opening import Opening, PendingSession, Warmup
from zizou.ui.router import InputRouter
from zizou.ui.screens.guarded import TypedAhead
from zizou.ui.screens.link_confirm import confirm_link
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.session import SetupMode, UiSession
from zizou.ui.shell import UserShell
from zizou.ui.slash import by_name, file_command_message
from zizou.ui.slash_commands import SlashCommands
from zizou.ui.turns import TurnController
from zizou.ui.undo_commands import UndoCommands
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.mascot import Mascot
from zizou.ui.widgets.messages import TypingClock
from zizou.ui.widgets.plan_checklist import PlanChecklist
from zizou.ui.widgets.prompt_area import PromptArea
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.sidebar import Sidebar, sidebar_info
from zizou.ui.widgets.status_bar import StatusBar
from zizou.ui.window_text import spend_use
from zizou.ui.workspace_commands import WorkspaceCommands

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from zizou.contracts.state import StateEvent
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.widgets.frozen_markdown import FrozenMarkdown

HERE = Path(__file__).parent


class ZizouApp(KeyedApp):
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        HERE / "app.tcss",
        *sorted(HERE.glob("widgets/*.tcss")),
        *sorted(HERE.glob("screens/*.tcss")),
    ]
    AUTO_FOCUS = "#prompt"  # keys typed while the app starts land in the prompt
    TITLE = "zizou"

    def __init__(
        self,
        session: UiSession | PendingSession,
        approver: TuiApprover,
        *,
        first_prompt: str | None = None,
        typed_ahead: str = "",
        warmup: Warmup | None = None,
        fade: bool = True,
        setup: SetupMode = None,
        keys: KeyServices | None = None,
        notify: NotifySettings | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        super().__init__()
        self.attention = Attention(notify or NotifySettings(), self._to_terminal, os.environ)
        approver.bind(self, self.attention)
        self.first_prompt = first_prompt
        self.typed_ahead = typed_lines(typed_ahead)
        self.fade = fade
        # Streamed text waits for a pause in typing; dialogs arm by it (`clock`: for tests).
        self.typing = TypingClock(clock) if clock is not None else TypingClock()
        self.chat = ChatView(self.typing, id="chat")
        self.composer = Composer(Completer(session.root))
        self.queue_panel = QueuePanel(id="queue")
        self.sidebar = Sidebar(id="sidebar")
        self.status = StatusBar(id="status")
        self.opening = Opening(self, session, warmup)
        self.workspace = WorkspaceCommands(self.opening, self.chat)
        self.turns = TurnController(
            self,
            self.opening,
            self.chat,
            self.composer,
            self.queue_panel,
            self.status,
            prepare=self._prepare,
        )
        self.models = ModelSwitcher(self, self.opening, self.chat, self.status, keys, setup)
        self.conversations = Conversations(self, self.opening, self.chat, self.turns, self.status)
        self.modes = ModeController(self, self.opening, self.chat, self.turns, self.typing)
        self.turns.on_finished = self.modes.turn_done  # the plan gate
        self.turns.attention = self.attention
        self.hooks = HookCommands(self, self.opening, self.chat, self.typing)
        self.mcp = McpCommands(self, self.opening, self.chat, self.typing)
        owners = [
            self.models,
            self.conversations,
            self.workspace,
            self.modes,
            self.hooks,
            self.mcp,
            ContextCommands(self, self.opening, self.chat, self.turns),
            UndoCommands(self, self.opening, self.chat, self.turns, self.composer),
            DeckCommands(self, self.opening, self.chat, self.turns),
        ]
        self.commands = SlashCommands(self, self.opening, self.chat, owners)
        self.shell = UserShell(self, self.opening, self.chat)
        self.router = InputRouter(
            self, self.opening, self.chat, self.composer, self.turns, self.commands, self.shell
        )
        self.focus_router = FocusRouter(self.composer, self.chat, self.queue_panel, self.sidebar)

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="conversation"):
                yield self.chat
                yield self.queue_panel
                yield self.composer
            yield self.sidebar
        yield self.status

    @property
    def session(self) -> UiSession:
        """The session; only once it is open (see `zizou.ui.opening`)."""
        return self.opening.current

    @property
    def busy(self) -> bool:
        """A turn runs, or the session is not ready: messages sent now are queued."""
        return self.turns.busy

    @property
    def queue(self) -> MessageQueue:
        return self.turns.queue

    async def on_mount(self) -> None:
        self.catch_signals()
        await self.chat.mount(Mascot(TAGLINE, fade=self.fade))
        self.composer.focus_prompt()
        if self.typed_ahead[1]:
            self.composer.set_text(self.typed_ahead[1])
        self.sidebar.fit(self.size.width)
        if self.opening.session is not None:
            self.run_worker(self._present(), group="present")
        else:
            self.status.state = "starting…"

    def on_ready(self) -> None:
        """The first frame is on screen: open the session, then warm up the model library."""
        self.opening.start()
        for text in [self.first_prompt or "", *self.typed_ahead[0]]:
            if text:
                self.call_after_refresh(self.router.submit, text)

    # --- what the controllers ask for ----------------------------------------------------------

    @on(Opening.Opened)
    def _opened(self, message: Opening.Opened) -> None:
        self.opening.opened(message.session)
        self.run_worker(self._present(), group="present")

    async def _present(self) -> None:
        """Show what the session brings and ask about the project hooks that wait for trust,
        then let what was typed meanwhile go."""
        self.session.watch_workspace(self._workspace_changed)
        try:
            await self.conversations.show_opened()
            await self.models.check_opened()
            await self.modes.opened()
            if self.session.kernel.untrusted:
                self.status.state = "a project hook waits for your answer…"
                await self.hooks.ask_untrusted()
            self.mcp.watch()
            self.composer.completer.mcp = self.session.kernel.mcp
            if (setup := self.session.kernel.mcp) is not None and setup.waiting is not None:
                self.status.state = "the project's MCP servers wait for your answer…"
                await self.mcp.ask_waiting()
        finally:
            await self.turns.ready()

    async def _prepare(self, text: str) -> str | None:
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

    @on(McpChanged)
    async def _mcp_changed(self, message: McpChanged) -> None:
        await self.mcp.changed(message.status)

    @on(Opening.Failed)
    def _open_failed(self, message: Opening.Failed) -> None:
        self.opening.error = message.error  # raised by the command line once the app is gone
        self.exit(1, return_code=getattr(message.error, "exit_code", 1))

    @on(ShowScreen)
    def _show_screen(self, message: ShowScreen) -> None:
        self.push_screen(message.screen, message.callback)

    @on(QuitRequested)
    async def _quit_requested(self) -> None:
        await self.action_quit()

    def release(self) -> None:
        if (session := self.opening.session) is not None:
            session.kernel.close()
            session.kernel.close_servers()

    @on(SessionChanged)
    def _session_changed(self) -> None:
        session = self.opening.session
        if session is not None:
            self.status.mode = session.kernel.state.mode
            self.status.permission = session.kernel.rules.permission_mode
            self.sidebar.info = sidebar_info(session)
            used = session.last_request_tokens
            self.status.context = (used, session.context_window if used else None)
            spending = session.kernel.spending
            caps = spending.caps
            self.status.spend = spend_use(
                spending.spent_usd, caps.max_usd, spending.tokens, caps.max_tokens
            )

    def _to_terminal(self, text: str) -> None:
        """Write `text` (the bell, a notification's escape sequence) to the terminal as it is.
        Textual has no public call for this; its own `bell()` writes through the driver too."""
        driver = self._driver
        if driver is not None and not self.is_headless:
            driver.write(text)

    def _workspace_changed(self, event: StateEvent) -> None:
        """The state (its workspace, task state, mode...) tells from the thread that changed it
        (often a tool's): post, which is safe from any thread, and redraw on the app's own."""
        self.post_message(SessionChanged())

    @on(UserShell.Shared)
    def _shared(self, message: UserShell.Shared) -> None:
        self.turns.share(message.run)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        await self.turns.worker_changed(event)

    # --- what the widgets say -------------------------------------------------------------------

    @on(Composer.Submitted)
    async def _submitted(self, event: Composer.Submitted) -> None:
        await self.router.submit(event.text, event.placed)

    @on(Composer.FilePicked)
    async def _file_picked(self, event: Composer.FilePicked) -> None:
        await self.router.open_file(event.path)

    @on(QueueList.Edit)
    async def _edit_queued(self, event: QueueList.Edit) -> None:
        await self.turns.edit(event.item_id)

    @on(QueueList.Remove)
    async def _remove_queued(self, event: QueueList.Remove) -> None:
        await self.turns.remove(event.item_id)

    @on(PlanChecklist.Action)
    async def _plan_action(self, event: PlanChecklist.Action) -> None:
        await self.commands.state.plan_action(event)

    @on(PickerScreen.Removed)
    async def _rule_removed(self, event: PickerScreen.Removed) -> None:
        await self.commands.remove_rule(event.value)

    @on(TypedAhead)
    def _typed_ahead(self, message: TypedAhead) -> None:
        """A key typed for the prompt as a dialog opened over it: it goes there after all."""
        self.composer.area.replay(message.key, message.character)

    @on(PromptArea.PageKey)
    def _page(self, event: PromptArea.PageKey) -> None:
        if event.key == "pageup":
            self.chat.scroll_page_up(animate=False)
        else:
            self.chat.scroll_page_down(animate=False)

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        confirm_link(self, event.href)

    def on_frozen_markdown_link_clicked(self, event: FrozenMarkdown.LinkClicked) -> None:
        confirm_link(self, event.href)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sidebar", "Show or hide the sidebar", self.action_toggle_sidebar)
        yield from self.router.palette_commands()


__all__ = ["ZizouApp"]
