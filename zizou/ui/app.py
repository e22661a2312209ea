"""The full-screen app: a conversation, a composer, a queue, a sidebar and a status line.

It renders the loop's events (`EventRenderer`) and answers its permission requests
(`TuiApprover`); turns and `!commands` run in workers, so the prompt stays live while they
run. Slash commands live in `SlashActions`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Resize
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from zizou import __version__
from zizou.ui.approver import TuiApprover
from zizou.ui.completion import Completer
from zizou.ui.event_renderer import EventRenderer
from zizou.ui.message_queue import MessageQueue
from zizou.ui.screens.picker import PickerScreen
from zizou.ui.session import UiSession
from zizou.ui.shell import run_user_command
from zizou.ui.slash import classify
from zizou.ui.slash_actions import SlashActions
from zizou.ui.widgets.chat_view import ChatView
from zizou.ui.widgets.composer import Composer
from zizou.ui.widgets.mascot import Mascot
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.sidebar import Sidebar, sidebar_info
from zizou.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from textual.widgets import Markdown

HERE = Path(__file__).parent
SIDEBAR_MIN_WIDTH = 110
QUIT_WINDOW_S = 2.0
PRELOAD_DELAY_S = 0.3


def _css_paths() -> list[str | PurePath]:
    return [
        HERE / "app.tcss",
        *sorted(HERE.glob("widgets/*.tcss")),
        *sorted(HERE.glob("screens/*.tcss")),
    ]


class ZizouApp(App[int]):
    CSS_PATH = _css_paths()
    TITLE = "zizou"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Interrupt", show=False),
        Binding("ctrl+c", "ctrl_c", "Quit", show=False, priority=True),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", show=False),
    ]

    def __init__(
        self,
        session: UiSession,
        approver: TuiApprover,
        *,
        first_prompt: str | None = None,
        preload: Callable[[], None] | None = None,
        fade: bool = True,
    ) -> None:
        super().__init__()
        approver.bind(self)
        self.session = session
        self.approver = approver
        self.first_prompt = first_prompt
        self.preload = preload
        self.fade = fade
        self.queue = MessageQueue()
        self.completer = Completer(session.root)
        self.slash = SlashActions(self)
        self.sidebar_wanted: bool | None = None  # None: shown when the terminal is wide
        self.turn_worker: Worker[None] | None = None
        self.preload_worker: Worker[None] | None = None
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
    def busy(self) -> bool:
        return self.turn_worker is not None and not self.turn_worker.is_finished

    async def on_mount(self) -> None:
        await self.chat.mount(Mascot(self.tagline(), fade=self.fade))
        self.composer.focus_prompt()
        self._layout_sidebar()
        self.refresh_sidebar()
        runtime = self.session.runtime
        if runtime.agent.conversation.messages:
            from zizou.ui.resumed import show_history

            await show_history(self.chat, runtime.agent.conversation.messages)
            await self.chat.add_notice(f"Resumed session {runtime.session_id}.")
        for warning in runtime.warnings:
            await self.chat.add_notice(warning, "warning")
        if self.session.model_problem:
            await self.show_key_setup(self.session.model_problem)

    def tagline(self) -> str:
        return f"v{__version__} · a coding agent in your terminal · /help"

    async def show_key_setup(self, problem: str) -> None:
        """No usable key. The key wizard will open here; until then, say what to do."""
        fix = "Set the key in the environment and restart, or pick another model with /models."
        await self.chat.add_notice(problem, "error", fix)

    def on_ready(self) -> None:
        """The first frame is on screen: now warm up what the first request needs."""
        if self.preload is not None:  # a moment later, so the first keystrokes come first
            self.set_timer(PRELOAD_DELAY_S, self._start_preload)
        self.run_worker(self._render_prompt, thread=True, group="prompt", exit_on_error=False)
        if self.first_prompt:
            self.call_after_refresh(self.submit, self.first_prompt)

    def _start_preload(self) -> None:
        if self.preload is not None and self.preload_worker is None:
            self.preload_worker = self.run_worker(
                self.preload, thread=True, group="preload", exit_on_error=False
            )

    def _render_prompt(self) -> None:
        self.session.runtime.prompt.render()
        self.call_from_thread(self.refresh_sidebar)

    def set_status(self, state: str) -> None:
        self.query_one(StatusBar).state = state

    def refresh_sidebar(self) -> None:
        self.query_one(Sidebar).info = sidebar_info(self.session)

    # --- sending -------------------------------------------------------------------------

    @on(Composer.Submitted)
    async def _submitted(self, event: Composer.Submitted) -> None:
        await self.submit(event.text)

    async def submit(self, text: str) -> None:
        """Route what the user sent: a queued edit, `!command`, `/command`, or a message."""
        if self.queue.editing is not None:
            self.queue.replace(self.queue.editing, text)
            self.composer.set_mode(None)
            await self._after_queue_change()
            return
        stripped = text.strip()
        if not stripped:
            self.queue.paused = False
            await self._after_queue_change()
            return
        if stripped.startswith("!"):
            await run_user_command(self, stripped[1:].strip())
            return
        parsed = classify(stripped, self.session.root)
        if parsed.kind == "command":
            await self.slash.run(parsed.name, parsed.args)
        elif parsed.kind == "unknown":
            hint = f" Did you mean /{parsed.suggestion}?" if parsed.suggestion else ""
            await self.chat.add_notice(
                f"Unknown command /{parsed.name}.{hint}", "warning", "/help lists the commands."
            )
        elif self.busy or len(self.queue):
            self.queue.add(text)
            self.queue.paused = False
            await self._after_queue_change()
        else:
            await self.start_turn(text)

    async def start_turn(self, text: str) -> None:
        await self.chat.add_user(text)
        self.query_one(StatusBar).busy = True
        self.turn_worker = self.run_worker(self._run_turn(text), group="turn", exit_on_error=False)

    async def _run_turn(self, text: str) -> None:
        self._start_preload()
        if self.preload_worker is not None and not self.preload_worker.is_finished:
            self.set_status("loading the model library…")
            await self.preload_worker.wait()
        renderer = EventRenderer(self.chat, self.session, self)
        try:
            async for event in self.session.runtime.agent.run_turn(text):
                await renderer.handle(event)
        finally:
            await renderer.close()

    async def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        if worker is not self.turn_worker or not worker.is_finished:
            return
        if event.state == WorkerState.CANCELLED:
            self.queue.paused = bool(len(self.queue))
            await self.chat.add_notice(
                "Interrupted: the stream was closed and running commands were stopped; "
                "the conversation so far is kept.",
                "warning",
            )
        elif event.state == WorkerState.ERROR:
            await self.chat.add_notice(
                f"The turn failed: {worker.error}", "error", "Send a message to try again."
            )
        self.turn_worker = None
        self.query_one(StatusBar).busy = False
        self.set_status("ready")
        await self._after_queue_change()

    async def _after_queue_change(self) -> None:
        if not self.busy and (item := self.queue.pop_ready()) is not None:
            await self.start_turn(item.text)
        panel = self.query_one(QueuePanel)
        panel.items = tuple(self.queue.items)
        panel.paused = self.queue.paused
        panel.editing = self.queue.editing

    @on(QueueList.Edit)
    async def _edit_queued(self, event: QueueList.Edit) -> None:
        item = self.queue.get(event.item_id)
        if item is None:
            return
        self.queue.editing = item.id
        self.composer.set_text(item.text)
        self.composer.set_mode("editing a queued message · Enter saves it in its place")
        self.composer.focus_prompt()
        await self._after_queue_change()

    @on(QueueList.Remove)
    async def _remove_queued(self, event: QueueList.Remove) -> None:
        if self.queue.editing == event.item_id:
            self.composer.set_mode(None)
        self.queue.remove(event.item_id)
        await self._after_queue_change()

    @on(PickerScreen.Removed)
    async def _rule_removed(self, event: PickerScreen.Removed) -> None:
        await self.slash.remove_rule(event.value)

    @on(Composer.FilePicked)
    async def _file_picked(self, event: Composer.FilePicked) -> None:
        await self.slash.run("add", [event.path])

    # --- keys ----------------------------------------------------------------------------

    async def action_interrupt(self) -> None:
        if self.queue.editing is not None:
            self.queue.editing = None
            self.composer.set_mode(None)
            self.composer.set_text("")
            await self._after_queue_change()
            return
        self.interrupt()

    def interrupt(self) -> bool:
        """Stop the running turn and `!commands`; True if anything was running."""
        running = [w for w in self.workers if w.group in ("turn", "shell") and not w.is_finished]
        for worker in running:
            worker.cancel()
        return bool(running)

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
        running = [w for w in self.workers if w.group in ("turn", "shell") and not w.is_finished]
        for worker in running:
            worker.cancel()
        if running:
            await asyncio.wait([asyncio.ensure_future(w.wait()) for w in running], timeout=5)
        self.exit(0)

    def action_toggle_sidebar(self) -> None:
        shown = self.query_one(Sidebar).display
        self.sidebar_wanted = not shown
        self._layout_sidebar()

    def _layout_sidebar(self) -> None:
        wide = self.size.width >= SIDEBAR_MIN_WIDTH
        self.query_one(Sidebar).display = (
            wide if self.sidebar_wanted is None else self.sidebar_wanted
        )

    def on_resize(self, event: Resize) -> None:
        self._layout_sidebar()
        for mascot in self.query(Mascot):
            mascot.refresh_form()

    def on_markdown_link_clicked(self, event: Markdown.LinkClicked) -> None:
        from zizou.ui.screens.link_confirm import LinkConfirmScreen

        href = event.href

        def confirmed(ok: bool | None) -> None:
            if ok:
                self.open_url(href)

        self.push_screen(LinkConfirmScreen(href), confirmed)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sidebar", "Show or hide the sidebar", self.action_toggle_sidebar)
        yield from self.slash.palette_commands()


__all__ = ["ZizouApp"]
