"""The full-screen app: a conversation, a composer, a queue, a sidebar and a status line.

The app composes; it owns no business logic. It builds the widgets and hands them down to the
controllers that hold the logic (`zizou.ui.controllers`: turns, slash commands, model and
session switching, modes, hooks, MCP, `!commands`, input routing), then routes to them what
comes up: the widgets' messages, the controllers' requests (`zizou.ui.host`), the session
state's changes, key bindings and worker events. Slow work runs in the controllers' workers, so
the prompt stays live.

The first frame is drawn from this module's imports alone: Textual and the widgets. The
controllers, and with them the session's contracts, pydantic and every command's handler, are
imported in a thread once that frame is on screen (`on_ready`), and built on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from zizou.ui.app_keys import KeyedApp
from zizou.ui.attention import Attention
from zizou.ui.completion import Completer
from zizou.ui.early_keys import typed_lines
from zizou.ui.focus import FocusRouter
from zizou.ui.host import QuitRequested, SessionChanged, ShowScreen
from zizou.ui.opening import Opening, PendingSession, Warmup
from zizou.ui.parsed_styles import ParsedStyles
from zizou.ui.screens.guarded import TypedAhead
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.mascot import TAGLINE, Mascot
from zizou.ui.widgets.messages import TypingClock
from zizou.ui.widgets.plan_checklist import PlanChecklist
from zizou.ui.widgets.prompt_area import PromptArea
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.sidebar import Sidebar, sidebar_info
from zizou.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from zizou.config.settings import NotifySettings
    from zizou.contracts.state import StateEvent
    from zizou.ui.approver import TuiApprover
    from zizou.ui.controllers import Controllers, Shell
    from zizou.ui.conversations import Conversations
    from zizou.ui.hook_commands import HookCommands
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.mcp_commands import McpChanged, McpCommands
    from zizou.ui.message_queue import MessageQueue
    from zizou.ui.model_switcher import ModelSwitcher
    from zizou.ui.modes import ModeController
    from zizou.ui.router import InputRouter
    from zizou.ui.screens.picker import PickerScreen
    from zizou.ui.session import SetupMode, UiSession
    from zizou.ui.shell import UserShell
    from zizou.ui.slash_commands import SlashCommands
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.frozen_markdown import FrozenMarkdown
    from zizou.ui.workspace_commands import WorkspaceCommands

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
        styles: ParsedStyles | None = None,
    ) -> None:
        super().__init__()
        self.parsed_styles = styles  # the stylesheets parsed at an earlier start, kept for the next
        if styles is not None:
            styles.restore(self.stylesheet)
        self.notify_settings = notify  # None: the opened session's, else the defaults
        self.attention = Attention(self._notify_settings, self._to_terminal, os.environ)
        approver.bind(self, self.attention)
        self.first_prompt = first_prompt
        self.typed_ahead = typed_lines(typed_ahead)
        self.fade = fade
        self.keys = keys
        self.setup = setup
        # Streamed text waits for a pause in typing; dialogs arm by it (`clock`: for tests).
        self.typing = TypingClock(clock) if clock is not None else TypingClock()
        self.chat = ChatView(self.typing, id="chat")
        self.composer = Composer(Completer(session.root))
        self.queue_panel = QueuePanel(id="queue")
        self.sidebar = Sidebar(id="sidebar")
        self.status = StatusBar(id="status")
        self.opening = Opening(self, session, warmup)
        self.focus_router = FocusRouter(self.composer, self.chat, self.queue_panel, self.sidebar)
        self._controls: Controllers | None = None
        self.banner_waits = False  # the banner is mounted after the first frame (`on_mount`)

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
    def controls(self) -> Controllers:
        """The controllers: built on first use, once their modules are imported (in a thread
        after the first frame, see `on_ready`; here, if something needs them sooner)."""
        if self._controls is None:
            from zizou.ui.controllers import declare_commands

            self._controls = declare_commands()(self._shell())
        return self._controls

    def _shell(self) -> Shell:
        from zizou.ui.controllers import Shell

        return Shell(
            self,
            self.opening,
            self.chat,
            self.composer,
            self.queue_panel,
            self.status,
            self.typing,
            self.attention,
            self.keys,
            self.setup,
        )

    @property
    def turns(self) -> TurnController:
        return self.controls.turns

    @property
    def router(self) -> InputRouter:
        return self.controls.router

    @property
    def modes(self) -> ModeController:
        return self.controls.modes

    @property
    def commands(self) -> SlashCommands:
        return self.controls.commands

    @property
    def models(self) -> ModelSwitcher:
        return self.controls.models

    @property
    def conversations(self) -> Conversations:
        return self.controls.conversations

    @property
    def workspace(self) -> WorkspaceCommands:
        return self.controls.workspace

    @property
    def hooks(self) -> HookCommands:
        return self.controls.hooks

    @property
    def mcp(self) -> McpCommands:
        return self.controls.mcp

    @property
    def shell(self) -> UserShell:
        return self.controls.shell

    def _notify_settings(self) -> NotifySettings:
        """`[notify]` as given, else as the opened session's options say, else the defaults."""
        if self.notify_settings is not None:
            return self.notify_settings
        if (session := self.opening.session) is not None and session.options is not None:
            return session.options.notify
        from zizou.config.settings import NotifySettings

        return NotifySettings()

    @property
    def busy(self) -> bool:
        """A turn runs, or the session is not ready: messages sent now are queued."""
        return self.turns.busy

    @property
    def queue(self) -> MessageQueue:
        return self.turns.queue

    async def on_mount(self) -> None:
        self.catch_signals()
        # A banner that fades in starts invisible: it is mounted once the first frame is up,
        # which would only have spent time drawing it transparent.
        self.banner_waits = (
            self.fade and self.animation_level != "none" and self.opening.session is None
        )
        if not self.banner_waits:
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
        """The first frame is on screen: load the controllers and declare the slash commands,
        open the session, then warm up the model library."""
        if self.banner_waits:
            self.chat.mount(Mascot(TAGLINE, fade=True))  # first in the conversation
        if self._controls is None:
            self.run_worker(_load_controllers, thread=True, group="controllers")
        kept = self.parsed_styles
        if kept is not None and (unsaved := kept.unsaved(self.stylesheet)):
            self.run_worker(partial(ParsedStyles.save, *unsaved), thread=True, group="styles")
        self.opening.start()
        for text in [self.first_prompt or "", *self.typed_ahead[0]]:
            if text:
                self.call_after_refresh(self._submit, text)

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

    async def on_mcp_changed(self, message: McpChanged) -> None:
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
            from zizou.ui.window_text import spend_use

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

    def on_user_shell_shared(self, message: UserShell.Shared) -> None:
        self.turns.share(message.run)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if self._controls is not None:
            await self.turns.worker_changed(event)  # a turn's own workers come after these
        elif event.worker.group == "controllers" and event.state == WorkerState.SUCCESS:
            build: Callable[[Shell], Controllers] | None = event.worker.result
            if build is not None:  # the modules are loaded: building them is quick
                self._controls = build(self._shell())

    # --- what the widgets say -------------------------------------------------------------------

    @on(Composer.Submitted)
    async def _submitted(self, event: Composer.Submitted) -> None:
        await self.router.submit(event.text, event.placed)

    async def _submit(self, text: str) -> None:
        await self.router.submit(text)

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

    async def on_picker_screen_removed(self, event: PickerScreen.Removed) -> None:
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
        from zizou.ui.screens.link_confirm import confirm_link

        confirm_link(self, event.href)

    def on_frozen_markdown_link_clicked(self, event: FrozenMarkdown.LinkClicked) -> None:
        from zizou.ui.screens.link_confirm import confirm_link

        confirm_link(self, event.href)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sidebar", "Show or hide the sidebar", self.action_toggle_sidebar)
        yield from self.router.palette_commands()


def _load_controllers() -> Callable[[Shell], Controllers]:
    """In a thread once the first frame is up: import the controllers (and so declare every
    slash command); what builds them."""
    from zizou.ui.controllers import declare_commands

    return declare_commands()


__all__ = ["ZizouApp"]
