"""The full-screen app: a conversation, a composer, a queue, a sidebar and a status line.

It renders the loop's events (`EventRenderer`) and answers its permission requests
(`TuiApprover`); turns (`Turns`) and `!commands` run in workers, so the prompt stays live while
they run. Slash commands live in `SlashActions`; opening the session after the first frame, in
`Opening`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Event, Key, Paste, Resize
from textual.screen import Screen
from textual.worker import Worker

from zizou import __version__
from zizou.ui.approver import TuiApprover
from zizou.ui.completion import Completer
from zizou.ui.early_keys import typed_lines
from zizou.ui.focus import FocusRouter
from zizou.ui.message_queue import MessageQueue
from zizou.ui.opening import Opening, PendingSession, Warmup
from zizou.ui.screens.link_confirm import confirm_link
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.session import SetupMode, UiSession
from zizou.ui.shell import run_user_command
from zizou.ui.slash import classify
from zizou.ui.slash_actions import SlashActions
from zizou.ui.turns import Turns
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.mascot import Mascot
from zizou.ui.widgets.prompt_area import PromptArea
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.sidebar import Sidebar, sidebar_info
from zizou.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.widgets import Markdown

    from zizou.sandbox import SandboxStatus
    from zizou.ui.key_setup import KeyServices
    from zizou.ui.widgets.frozen_markdown import FrozenMarkdown

HERE = Path(__file__).parent
QUIT_WINDOW_S = 2.0


class ZizouApp(App[int]):
    CSS_PATH: ClassVar[list[str | PurePath]] = [
        HERE / "app.tcss",
        *sorted(HERE.glob("widgets/*.tcss")),
        *sorted(HERE.glob("screens/*.tcss")),
    ]
    AUTO_FOCUS = "#prompt"  # keys typed while the app starts land in the prompt
    TITLE = "zizou"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False),
        Binding("ctrl+o", "toggle_output", "Output", show=False),
    ]

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
    ) -> None:
        super().__init__()
        approver.bind(self)
        self.focus_router = FocusRouter(self)
        self.opening = Opening(self, session, warmup)
        self.approver = approver
        self.first_prompt = first_prompt
        self.typed_ahead = typed_lines(typed_ahead)
        self.fade = fade
        self.setup = setup  # "setup" or "reset": open the key wizard at once
        self._keys = keys
        self.turns = Turns(self)
        self.completer = Completer(self.opening.root)
        self.slash = SlashActions(self)
        self.last_key_at: float | None = None  # streamed text waits for a pause in typing
        self._last_ctrl_c = 0.0

    def compose(self) -> ComposeResult:
        with Horizontal(id="main"):
            with Vertical(id="conversation"):
                yield ChatView(id="chat")
                yield QueuePanel(id="queue")
                yield Composer(self.completer)
            yield Sidebar(id="sidebar")
        yield StatusBar(id="status")

    @property
    def chat(self) -> ChatView:
        return self.query_one(ChatView)

    @property
    def composer(self) -> Composer:
        return self.query_one(Composer)

    @property
    def keys(self) -> KeyServices:
        """The key API as the wizard and `/models` use it."""
        if self._keys is None:
            from zizou.ui.key_setup import KeyServices

            self._keys = KeyServices()
        return self._keys

    @property
    def session(self) -> UiSession:
        """The session; only once it is open (see `zizou.ui.opening`)."""
        if self.opening.session is None:
            raise RuntimeError("the session is not open yet")
        return self.opening.session

    @property
    def busy(self) -> bool:
        """A turn runs, or the session is still opening: messages sent now are queued."""
        return self.turns.running or not self.opening.ready

    async def on_mount(self) -> None:
        await self.chat.mount(Mascot(self.tagline(), fade=self.fade))
        self.composer.focus_prompt()
        if self.typed_ahead[1]:
            self.composer.set_text(self.typed_ahead[1])
        self.query_one(Sidebar).fit(self.size.width)
        if self.opening.ready:
            await self.opening.present()
        else:
            self.set_status("starting…")

    def on_ready(self) -> None:
        """The first frame is on screen: open the session, then warm up the model library."""
        self.opening.start()
        for text in [self.first_prompt or "", *self.typed_ahead[0]]:
            if text:
                self.call_after_refresh(self.submit, text)

    def tagline(self) -> str:
        return f"v{__version__} · a coding agent in your terminal · /help"

    def set_status(self, state: str) -> None:
        self.query_one(StatusBar).state = state

    def show_sandbox(self, status: SandboxStatus) -> None:
        """A standing note in the status bar when commands cannot run sandboxed."""
        notes = {"missing": "no sandbox: every command asks", "off": "sandbox off"}
        self.query_one(StatusBar).warning = notes.get(status.state, "")

    def refresh_sidebar(self) -> None:
        if self.opening.ready:
            self.query_one(Sidebar).info = sidebar_info(self.session)

    @property
    def queue(self) -> MessageQueue:
        return self.turns.queue

    @on(Composer.Submitted)
    async def _submitted(self, event: Composer.Submitted) -> None:
        await self.submit(event.text)

    async def submit(self, text: str) -> None:
        """Route what the user sent: a queued edit, `!command`, `/command`, or a message."""
        stripped = text.strip()
        if await self.turns.save_edit(text):
            return
        if not stripped:
            await self.turns.resume_queue()
        elif stripped.startswith("!"):
            await self.opening.wait()
            await run_user_command(self, stripped[1:].strip())
        elif (parsed := classify(stripped, self.opening.root)).kind == "command":
            await self.opening.wait()
            await self.slash.run(parsed.name, parsed.args)
        elif parsed.kind == "unknown":
            hint = f" Did you mean /{parsed.suggestion}?" if parsed.suggestion else ""
            await self.chat.add_notice(
                f"Unknown command /{parsed.name}.{hint}", "warning", "/help lists the commands."
            )
        elif self.busy or len(self.queue):
            await self.turns.add(text)
        else:
            await self.turns.start(text)

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        await self.turns.worker_changed(event)

    async def after_queue_change(self) -> None:
        await self.turns.changed()

    @on(QueueList.Edit)
    async def _edit_queued(self, event: QueueList.Edit) -> None:
        await self.turns.edit(event.item_id)

    @on(QueueList.Remove)
    async def _remove_queued(self, event: QueueList.Remove) -> None:
        await self.turns.remove(event.item_id)

    @on(PickerScreen.Removed)
    async def _rule_removed(self, event: PickerScreen.Removed) -> None:
        await self.slash.remove_rule(event.value)

    @on(PromptArea.PageKey)
    def _page(self, event: PromptArea.PageKey) -> None:
        if event.key == "pageup":
            self.chat.scroll_page_up(animate=False)
        else:
            self.chat.scroll_page_down(animate=False)

    @on(Composer.FilePicked)
    async def _file_picked(self, event: Composer.FilePicked) -> None:
        await self.opening.wait()
        await self.slash.run("add", [event.path])

    async def on_event(self, event: Event) -> None:
        if isinstance(event, Key):
            self.last_key_at = time.monotonic()
        if isinstance(event, Key | Paste) and not event.is_forwarded:
            self.focus_router.claim(event)  # text typed while focus is elsewhere: the prompt's
        await super().on_event(event)

    def action_focus_next(self) -> None:
        if not self.focus_router.move(forward=True):
            super().action_focus_next()

    def action_focus_previous(self) -> None:
        if not self.focus_router.move(forward=False):
            super().action_focus_previous()

    async def action_interrupt(self) -> None:
        if not self.focus_router.home() and not await self.turns.cancel_edit():
            self.interrupt()

    def action_toggle_output(self) -> None:
        self.chat.toggle_outputs()

    def interrupt(self) -> list[Worker[object]]:
        """Stop the running turn and `!commands`; the workers that were running."""
        running = [w for w in self.workers if w.group in ("turn", "shell") and not w.is_finished]
        for worker in running:
            worker.cancel()
        return running

    async def action_ctrl_c(self) -> None:
        now = time.monotonic()
        if now - self._last_ctrl_c < QUIT_WINDOW_S:
            await self.action_quit()
            return
        self._last_ctrl_c = now
        self.interrupt()
        self.notify("Press Ctrl+C again to quit.", timeout=QUIT_WINDOW_S)

    async def action_quit(self) -> None:
        """Stop what runs (killing command process groups) before leaving."""
        if running := self.interrupt():
            await asyncio.wait([asyncio.ensure_future(w.wait()) for w in running], timeout=5)
        self.exit(0)

    def action_toggle_sidebar(self) -> None:
        self.query_one(Sidebar).toggle(self.size.width)

    def on_resize(self, event: Resize) -> None:
        self.query_one(Sidebar).fit(self.size.width)
        for mascot in self.query(Mascot):
            mascot.refresh_form()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        confirm_link(self, event.href)

    def on_frozen_markdown_link_clicked(self, event: FrozenMarkdown.LinkClicked) -> None:
        confirm_link(self, event.href)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sidebar", "Show or hide the sidebar", self.action_toggle_sidebar)
        yield from self.slash.palette_commands()


__all__ = ["ZizouApp"]
