"""One ACP session: a zizou session kernel, the turn it runs, and what the editor was last told of
its plan and mode. A prompt is a slash command answered here (zizou/acp/slash.py) or a turn on
the message and its images; in plan mode, a turn that ends with open plan items is followed by
the plan gate. A turn runs in a task of its own, so `session/cancel` ends it at once: the loop
answers the running call with what it did (a command is killed), records the turn's end, and
the prompt answers `cancelled`."""

from __future__ import annotations

import asyncio
import logging
from contextlib import aclosing
from typing import Any, Protocol

from acp import (
    RequestError,
    plan_entry,
    update_agent_message_text,
    update_plan,
    update_user_message_text,
)
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import (
    ConfigOptionUpdate,
    PlanEntryStatus,
    SessionConfigSelectOption,
    StopReason,
)

from zizou.acp.config_options import ConfigOption, config_options
from zizou.acp.permissions import PermissionClient
from zizou.acp.plan_gate import ask_to_build, gate_plan
from zizou.acp.replay import replayed
from zizou.acp.slash import Said, available_commands, slash_command
from zizou.acp.updates import TurnUpdates, Update, notice, stop_reason
from zizou.contracts.events import TurnFinished
from zizou.contracts.messages import ImagePart
from zizou.contracts.protocols import Model
from zizou.hooks.modes import GO_AHEAD, plan_items
from zizou.session.kernel import Session

log = logging.getLogger(__name__)
NO_IMAGES = (
    "{model} does not take images: pick a model that does (the Model setting), "
    "or send the prompt without them"
)
PLAN_STATUSES: dict[str, PlanEntryStatus] = {"in_progress": "in_progress", "done": "completed"}


class UpdateClient(Protocol):
    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...


class SessionClient(UpdateClient, PermissionClient, Protocol):
    """What a session asks of the editor: to be told, and to answer (the plan gate)."""


class AcpSession:
    def __init__(
        self, kernel: Session, client: SessionClient, models: list[SessionConfigSelectOption]
    ) -> None:
        self.kernel = kernel
        self.client = client
        self.models = models  # the models the editor may switch to
        self.turn: asyncio.Task[StopReason] | None = None
        self._told_plan: list[tuple[str, str]] = self._plan()
        self._told_mode = kernel.state.mode

    @property
    def id(self) -> str:
        return self.kernel.session_id

    async def send(self, update: Update) -> None:
        """Tell the editor; a client that is gone hears nothing (the turn goes on to its end)."""
        try:
            await self.client.session_update(session_id=self.id, update=update)
        except (ConnectionError, RequestError) as exc:
            log.debug("an update was not delivered: %s", exc)

    async def replay(self) -> None:
        """The conversation so far, told again (a loaded session)."""
        for update in replayed(self.kernel.root, self.kernel.conversation.records):
            await self.send(update)
        self._told_plan = []  # the editor knows nothing of this session yet
        await self._tell_state()

    async def tell_commands(self) -> None:
        """The slash commands the editor may offer (`available_commands_update`)."""
        commands = await asyncio.to_thread(available_commands, self.kernel)
        await self.send(update_available_commands(commands))

    async def prompt(self, text: str, images: tuple[ImagePart, ...] = ()) -> StopReason:
        if self.turn is not None and not self.turn.done():
            raise RequestError.invalid_request({"message": "a turn is already running"})
        model = self.kernel.model
        if images and not getattr(model, "takes_images", False):
            raise RequestError.invalid_params({"message": NO_IMAGES.format(model=model.id)})
        turn = self.turn = asyncio.create_task(self._answer(text, images))
        try:
            return await turn
        except asyncio.CancelledError:
            # The editor's cancel landed outside the loop (while it was being told something,
            # say): the turn is over all the same, and the editor waits for this answer.
            if turn.cancelled():
                return "cancelled"
            raise  # this request itself was cancelled (the connection is closing)

    def set_mode(self, mode: str) -> None:
        """The editor switched the mode: it knows, so it is not told back."""
        self.kernel.set_mode(mode, "user")
        self._told_mode = mode

    def switch_model(self, model: Model) -> None:
        """The editor picked `model`: the requests from the next one on go to it."""
        self.kernel.switch_model(model)

    def config_options(self) -> list[ConfigOption]:
        state = self.kernel.state
        return config_options(self.kernel.model.id, state.mode, self.models)

    def cancel(self) -> None:
        if self.turn is not None:
            self.turn.cancel()

    async def close(self) -> None:
        """End the running turn, then the session's commands, jobs and servers."""
        if self.turn is not None and not self.turn.done():
            self.turn.cancel()
            try:
                await self.turn
            except (asyncio.CancelledError, Exception) as exc:
                log.debug("the turn ended as the session closed: %r", exc)
        if stopped := await asyncio.to_thread(self.kernel.close):
            log.warning("stopped background jobs on exit: %s", ", ".join(stopped))

    async def _answer(self, text: str, images: tuple[ImagePart, ...]) -> StopReason:
        """A slash command answered here, or a turn run on the message it sends; then, in plan
        mode, the plan gate."""
        try:
            outcome = await slash_command(self.kernel, text)
            if isinstance(outcome, Said):
                await self.send(update_agent_message_text(outcome.text))
                await self._tell_state()
                return "end_turn"
        except asyncio.CancelledError:  # a command stopped midway (a /compact, a /run)
            return "cancelled"
        for note in outcome.notes:
            await self.send(notice(note))
        stop = await self._run(outcome.text, images)
        plan = gate_plan(self.kernel.state) if stop == "end_turn" else None
        if plan is None:
            return stop
        try:
            build = await ask_to_build(self.client, self.id, plan, self.send)
        except asyncio.CancelledError:
            return "cancelled"
        if not build:
            return stop
        self.kernel.set_mode("build", "user")
        await self._tell_state()
        await self.send(update_user_message_text(GO_AHEAD))
        return await self._run(GO_AHEAD)

    async def _run(self, text: str, images: tuple[ImagePart, ...] = ()) -> StopReason:
        updates = TurnUpdates(self.kernel.root)
        finished: TurnFinished | None = None
        turn = self.kernel.run_turn(text, images)
        try:
            async with aclosing(turn) as events:
                async for event in events:
                    for update in updates.of(event):
                        await self.send(update)
                    if isinstance(event, TurnFinished):
                        finished = event
                    await self._tell_state()
        except asyncio.CancelledError:  # the loop ended the turn ("cancelled") first
            if finished is None:
                raise
        assert finished is not None
        if finished.reason == "error":
            raise RequestError.internal_error({"message": finished.message or "the turn failed"})
        return stop_reason(finished, updates.last_finish_reason)

    async def _tell_state(self) -> None:
        """The plan and the mode, when they changed since the editor was told."""
        plan = self._plan()
        if plan != self._told_plan:
            self._told_plan = plan
            entries = [
                plan_entry(title, status=PLAN_STATUSES.get(s, "pending")) for title, s in plan
            ]
            await self.send(update_plan(entries))
        mode = self.kernel.state.mode
        if mode != self._told_mode:
            self._told_mode = mode
            await self.send(update_current_mode(mode))
            options = self.config_options()
            await self.send(
                ConfigOptionUpdate(session_update="config_option_update", config_options=options)
            )

    def _plan(self) -> list[tuple[str, str]]:
        task = self.kernel.state.task
        items = plan_items(task.value if task is not None else None)
        return [(str(item.get("title")), str(item.get("status", "pending"))) for item in items]


__all__ = ["AcpSession", "SessionClient", "UpdateClient"]
