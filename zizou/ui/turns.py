"""The turn that runs (in a worker, so the prompt stays live) and the messages queued behind it.

Messages sent while a turn runs, or while the session is still opening, wait in the queue,
visibly and editable, and go out in order; after an interrupt the queue waits until the user
sends again. Each turn's events are drawn by an `EventRenderer`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.worker import Worker, WorkerState

from zizou.ui.message_queue import MessageQueue
from zizou.ui.widgets.queue_panel import QueueList, QueuePanel
from zizou.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from zizou.ui.app import ZizouApp
    from zizou.ui.event_renderer import EventRenderer

EDITING = "editing a queued message · Enter saves it in its place"
INTERRUPTED = (
    "Interrupted: the stream was closed and running commands were stopped; "
    "the conversation so far is kept."
)


class Turns:
    def __init__(self, app: ZizouApp) -> None:
        self.app = app
        self.queue = MessageQueue()
        self.worker: Worker[None] | None = None
        self.renderer: EventRenderer | None = None  # the running turn's
        self.notes: list[str] = []  # `!command` results for the model, kept while a turn runs

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    async def start(self, text: str) -> None:
        await self.app.chat.add_user(text)
        self.app.query_one(StatusBar).busy = True
        self.worker = self.app.run_worker(self._run(text), group="turn", exit_on_error=False)

    async def _run(self, text: str) -> None:
        from zizou.ui.event_renderer import EventRenderer

        app = self.app
        await app.opening.wait_for_preload()
        renderer = self.renderer = EventRenderer(app.chat, app.session, app)
        try:
            async for event in app.session.runtime.agent.run_turn(text):
                await renderer.handle(event)
        finally:
            await renderer.close()

    async def worker_changed(self, event: Worker.StateChanged) -> None:
        worker, chat = event.worker, self.app.chat
        if worker is not self.worker or not worker.is_finished:
            return
        renderer, self.renderer = self.renderer, None
        if event.state == WorkerState.CANCELLED:
            self.queue.paused = bool(len(self.queue))
            if renderer is not None and renderer.finished is None:
                self.app.session.record_interrupted(renderer.steps, renderer.usage, INTERRUPTED)
            await chat.add_notice(INTERRUPTED, "warning")
        elif event.state == WorkerState.ERROR:
            await chat.add_notice(
                f"The turn failed: {worker.error}", "error", "Send a message to try again."
            )
        self.worker = None
        self._add_notes()
        self.app.query_one(StatusBar).busy = False
        self.app.set_status("ready")
        self.app.opening.turn_ended()
        await self.changed()

    async def changed(self) -> None:
        """Send the next queued message if nothing runs, and show the queue as it is."""
        if not self.app.busy and (item := self.queue.pop_ready()) is not None:
            await self.start(item.text)
        panel = self.app.query_one(QueuePanel)
        panel.items = tuple(self.queue.items)
        panel.paused = self.queue.paused
        panel.editing = self.queue.editing
        if not self.queue.items and isinstance(self.app.focused, QueueList):
            self.app.composer.focus_prompt()  # the list it was in is gone

    def share(self, note: str) -> None:
        """Put `note` in the conversation for the model to read with the next message: now, or
        when the running turn ends (a turn's history is not to be cut into)."""
        self.notes.append(note)
        if not self.running:
            self._add_notes()

    def _add_notes(self) -> None:
        if not self.notes or self.app.opening.session is None:
            return
        conversation = self.app.session.runtime.agent.conversation
        for note in self.notes:
            conversation.add_user(note)
        self.notes.clear()

    async def add(self, text: str) -> None:
        self.queue.add(text)
        self.queue.paused = False
        await self.changed()

    async def edit(self, item_id: int) -> None:
        item = self.queue.get(item_id)
        if item is None:
            return
        composer = self.app.composer
        self.queue.editing = item.id
        composer.set_text(item.text)
        composer.set_mode(EDITING)
        composer.focus_prompt()
        await self.changed()

    async def save_edit(self, text: str) -> bool:
        """Enter while a queued message is being edited: it takes the text, in its place."""
        if self.queue.editing is None:
            return False
        self.queue.replace(self.queue.editing, text)
        self.app.composer.set_mode(None)
        await self.changed()
        return True

    async def cancel_edit(self) -> bool:
        """Esc while editing a queued message leaves it as it was."""
        if self.queue.editing is None:
            return False
        self.queue.editing = None
        self.app.composer.set_mode(None)
        self.app.composer.set_text("")
        await self.changed()
        return True

    async def remove(self, item_id: int) -> None:
        if self.queue.editing == item_id:
            self.app.composer.set_mode(None)
        self.queue.remove(item_id)
        await self.changed()

    async def resume_queue(self) -> None:
        """An empty Enter: a queue paused by an interrupt goes on."""
        self.queue.paused = False
        await self.changed()


__all__ = ["Turns"]
