"""The turn that runs (in a worker, so the prompt stays live) and the messages queued behind it.

Messages sent while a turn runs, or while the session is not ready (opening, or being swapped
by /clear or /sessions), wait in the queue, visibly and editable, and go out in order; after an
interrupt the queue waits until the user sends again. Each turn's events are drawn by an
`EventRenderer`; `!command` results wait here for the model until the running turn ends.

Before a turn's first step, `prepare` sees its message (the app opens the files it names as
`@PATH`, and expands what it names of the MCP servers) and returns what the model is sent:
in the turn's worker, so a message sent meanwhile is queued, whether the message was sent now or
waited in the queue.

A turn that ran longer than `[notify] after_s` calls the person back when it ends (the bell, a
desktop notification: `zizou.ui.attention`), unless they interrupted it themselves.

From the sending of a message, frames wait for the turn's end for a moment
(`zizou.ui.frames.TurnFrames`): an answer quicker than that is drawn with the message, at once.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerState

from zizou.contracts.messages import ShellRun
from zizou.ui.endings import INTERRUPTED
from zizou.ui.event_renderer import EventRenderer
from zizou.ui.frames import TurnFrames
from zizou.ui.host import SessionChanged
from zizou.ui.message_queue import MessageQueue
from zizou.ui.shell import shell_note
from zizou.ui.widgets.queue_panel import QueuePanel

if TYPE_CHECKING:
    from zizou.contracts.events import TurnFinished
    from zizou.ui.attention import Attention
    from zizou.ui.host import Host
    from zizou.ui.opening import Opening
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.composer import Composer
    from zizou.ui.widgets.status_bar import StatusBar

EDITING = "editing a queued message · Enter saves it in its place"


class TurnController:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        chat: ChatView,
        composer: Composer,
        panel: QueuePanel,
        status: StatusBar,
        prepare: Callable[[str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.host = host
        self.prepare = prepare
        self.opening = opening
        self.chat = chat
        self.composer = composer
        self.panel = panel
        self.status = status
        self.queue = MessageQueue()
        self.worker: Worker[None] | None = None
        self.renderer: EventRenderer | None = None  # the running turn's
        self.notes: list[ShellRun] = []  # `!command` results for the model, kept while a turn runs
        # Told how each turn that ran to its end finished, before the queue goes on.
        self.on_finished: Callable[[TurnFinished], Awaitable[None]] | None = None
        self.attention: Attention | None = None  # calls the person back after a long turn
        self.started = 0.0  # when the running turn started (time.monotonic)
        self.frames = TurnFrames(chat)  # held from a message's sending to its turn's end

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    @property
    def busy(self) -> bool:
        """A turn runs, or the session is not ready: messages sent now are queued."""
        return self.running or not self.opening.ready

    # --- RenderHost: what the renderer tells besides the conversation ----------------------

    def set_status(self, state: str) -> None:
        self.status.state = state

    def session_changed(self) -> None:
        self.host.post_message(SessionChanged())

    # --- the turn ----------------------------------------------------------------------------

    async def start(self, text: str) -> None:
        self.frames.hold()
        self.chat.add_user(text)
        self.status.busy = True
        self.started = time.monotonic()
        self.worker = self.host.run_worker(self._run(text), group="turn", exit_on_error=False)

    async def _run(self, text: str) -> None:
        if self.prepare is not None:
            prepared = await self.prepare(text)
            if prepared is None:  # it could not be sent (an MCP prompt failed): said already
                return
            text = prepared
        if self.opening.preloading:
            self.set_status("loading the model library…")
        await self.opening.wait_for_preload()
        session = self.opening.current
        renderer = self.renderer = EventRenderer(self.chat, session, self)
        events = session.kernel.run_turn(text)
        try:
            async for event in events:
                await renderer.handle(event)
        finally:
            if isinstance(events, AsyncGenerator):  # stopped early: the loop records the end
                await events.aclose()
            await renderer.close()

    async def worker_changed(self, event: Worker.StateChanged) -> None:
        """The turn's worker ended: say how, if it did not end by itself, and go on."""
        worker = event.worker
        if worker is not self.worker or not worker.is_finished:
            return
        if not self.chat.is_attached:  # the app is closing: there is no screen to update
            self.worker, self.renderer = None, None
            self.frames.release()
            return
        renderer, self.renderer = self.renderer, None
        if event.state == WorkerState.CANCELLED:
            self.queue.paused = bool(len(self.queue))
            if renderer is not None and renderer.finished is None:
                self.opening.current.record_turn(renderer.usage)
            await self.chat.add_notice(INTERRUPTED, "warning")
        elif event.state == WorkerState.ERROR:
            await self.chat.add_notice(
                f"The turn failed: {worker.error}", "error", "Send a message to try again."
            )
        self.worker = None
        if self.attention is not None and event.state != WorkerState.CANCELLED:
            how = "failed" if event.state == WorkerState.ERROR else "finished"
            how = _how(renderer.finished if renderer is not None else None, how)
            self.attention.turn_finished(time.monotonic() - self.started, how)
        self._add_notes()
        self.status.busy = False
        self.set_status("ready")
        self.opening.turn_ended()
        finished = renderer.finished if renderer is not None else None
        if event.state == WorkerState.SUCCESS and finished and self.on_finished is not None:
            await self.on_finished(finished)
        self.frames.release()  # the turn's end is drawn with its message, if the hold lasted
        await self.changed()

    async def ready(self) -> None:
        """The session is ready (opened and shown, or swapped): queued messages go out."""
        self.opening.release()
        self.set_status("ready")
        self.session_changed()
        self._add_notes()
        await self.changed()

    async def changed(self) -> None:
        """Send the next queued message if nothing runs, and show the queue as it is."""
        if not self.busy and (item := self.queue.pop_ready()) is not None:
            await self.start(item.text)
        panel = self.panel
        panel.items = tuple(self.queue.items)
        panel.paused = self.queue.paused
        panel.editing = self.queue.editing
        if not self.queue.items and panel.has_focus_within:
            self.composer.focus_prompt()  # the list it was in is gone

    def share(self, run: ShellRun) -> None:
        """Put a `!command`'s result in the conversation for the model to read with the next
        message: now, or when the running turn ends (a turn's history is not to be cut into)."""
        self.notes.append(run)
        if not self.running:
            self._add_notes()

    def _add_notes(self) -> None:
        if not self.notes or not self.opening.ready:
            return
        conversation = self.opening.current.kernel.conversation
        for run in self.notes:
            conversation.add_user(shell_note(run.command, run.result), shell=run)
        self.notes.clear()

    # --- the queue ---------------------------------------------------------------------------

    async def add(self, text: str) -> None:
        self.queue.add(text)
        self.queue.paused = False
        await self.changed()

    async def edit(self, item_id: int) -> None:
        item = self.queue.get(item_id)
        if item is None:
            return
        self.queue.editing = item.id
        self.composer.set_text(item.text)
        self.composer.set_mode(EDITING)
        self.composer.focus_prompt()
        await self.changed()

    async def save_edit(self, text: str) -> bool:
        """Enter while a queued message is being edited: it takes the text, in its place."""
        if self.queue.editing is None:
            return False
        self.queue.replace(self.queue.editing, text)
        self.composer.set_mode(None)
        await self.changed()
        return True

    async def cancel_edit(self) -> bool:
        """Esc while editing a queued message leaves it as it was."""
        if self.queue.editing is None:
            return False
        self.queue.editing = None
        self.composer.set_mode(None)
        self.composer.set_text("")
        await self.changed()
        return True

    async def remove(self, item_id: int) -> None:
        if self.queue.editing == item_id:
            self.composer.set_mode(None)
        self.queue.remove(item_id)
        await self.changed()

    async def resume_queue(self) -> None:
        """An empty Enter: a queue paused by an interrupt goes on."""
        self.queue.paused = False
        await self.changed()


def _how(finished: TurnFinished | None, otherwise: str) -> str:
    """How a turn ended, in the words of its notification."""
    if finished is None or finished.reason == "done":
        return otherwise
    return {
        "error": "failed",
        "budget": "stopped at the spending cap",
        "max_steps": "stopped at the step cap",
        "loop_guard": "was stopped by a loop guard",
    }.get(finished.reason, "ended")


__all__ = ["EDITING", "TurnController"]
