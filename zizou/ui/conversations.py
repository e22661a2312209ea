"""The conversation on screen as a whole: what the session opens with (a resumed history, its
warnings), a new one (/clear, in the mode the user was in), and a saved one resumed (/sessions,
in its own mode).

Listing the saved sessions, building a session kernel (which creates or loads the session file)
and reading a resumed history all touch the disk, so they run in workers; while a conversation
is being swapped the session is held, so messages sent meanwhile queue and go to the new one.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from typing import TYPE_CHECKING

from zizou.errors import ZizouError
from zizou.plural import counted
from zizou.ui.hook_commands import untrusted_warning
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.mcp_commands import waiting_warning
from zizou.ui.modes import SWITCHED
from zizou.ui.resumed import show_resumed
from zizou.ui.screens.picker import Entry, PickerScreen
from zizou.ui.slash_registry import slash
from zizou.ui.widgets.mascot import TAGLINE, Mascot

if TYPE_CHECKING:
    from zizou.sessions.store import SessionSummary
    from zizou.ui.host import Host
    from zizou.ui.opening import Opening
    from zizou.ui.turns import TurnController
    from zizou.ui.widgets.chat_view import ChatView
    from zizou.ui.widgets.status_bar import StatusBar

PROMPT_CHARS = 60
SANDBOX_NOTES = {"missing": "no sandbox: every command that writes asks", "off": "sandbox off"}
BUSY = "A turn is running: press Esc to stop it first."


class Conversations:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        chat: ChatView,
        turns: TurnController,
        status: StatusBar,
    ) -> None:
        self.host = host
        self.opening = opening
        self.chat = chat
        self.turns = turns
        self.status = status

    async def show_opened(self) -> None:
        """What the session brings: a resumed history, its warnings, and a standing note in the
        status bar when commands cannot run sandboxed. The prompt is rendered in a thread for
        the sidebar."""
        session = self.opening.current
        kernel = session.kernel
        if kernel.conversation.messages:
            await show_resumed(self.chat, session)
            await self.chat.add_notice(f"Resumed session {kernel.session_id}.")
        for warning in kernel.warnings:
            # The app asks about the hooks and the MCP servers waiting for trust.
            if not untrusted_warning(kernel, warning) and not waiting_warning(kernel, warning):
                await self.chat.add_notice(warning, "warning")
        self.status.warning = SANDBOX_NOTES.get(kernel.sandbox_status.state, "")
        self.host.run_worker(self._render_prompt(), group="prompt", exit_on_error=False)

    async def _render_prompt(self) -> None:
        await asyncio.to_thread(self.opening.current.kernel.prompt.preview)
        self.host.post_message(SessionChanged())

    @slash("clear", help="start a new conversation", section="conversation")
    @slash("reset", help="start a new conversation (as /clear)", section="conversation")
    async def clear(self, args: list[str]) -> None:
        """/clear: a new session with the same model, rules and open windows."""
        await self._swap(None)

    @slash("sessions", help="list this project's sessions and resume one", section="conversation")
    async def sessions(self, args: list[str]) -> None:
        """/sessions: pick a saved session of this project to go on with."""
        self.host.run_worker(self._pick_session(), group="sessions", exclusive=True)

    async def _pick_session(self) -> None:
        from zizou.sessions.store import SessionStore

        session = self.opening.current
        summaries = await asyncio.to_thread(SessionStore(session.root).list)
        current = session.kernel.session_id
        entries = [session_entry(s, s.id == current) for s in summaries]

        async def picked(session_id: str | None) -> None:
            if session_id and session_id != current:
                await self._swap(session_id)

        title = "Resume a session of this project"
        self.host.post_message(ShowScreen(PickerScreen(title, entries, filtering=True), picked))

    async def _swap(self, resume: str | None) -> None:
        if self.turns.busy:
            await self.chat.add_notice(BUSY, "warning")
            return
        self.opening.hold()
        self.host.run_worker(self._swapping(resume), group="session")

    async def _swapping(self, resume: str | None) -> None:
        """Build the new kernel (for a resume, loading its file) in a thread, then show it."""
        session = self.opening.current
        try:
            try:
                kernel = await asyncio.to_thread(session.open_successor, resume)
            except ZizouError as exc:
                await self.chat.add_notice(str(exc), "error")
                return
            mode = session.kernel.state.mode
            session.adopt(kernel)
            await self.chat.clear()
            self.opening.conversation_dropped()
            await self.chat.mount(Mascot(TAGLINE, fade=False))
            if resume is None:  # a new conversation goes on in the mode the user was in
                kernel.state.set_mode(mode, "user")
                await self.chat.add_notice(f"New conversation: session {kernel.session_id}.")
                return
            await show_resumed(self.chat, session)
            await self.chat.add_notice(f"Resumed session {kernel.session_id}.", "success")
            for warning in kernel.warnings:
                await self.chat.add_notice(warning, "warning")
            if kernel.state.mode == "plan":
                await self.chat.add_notice(SWITCHED["plan"])
        finally:
            await self.turns.ready()


def session_entry(summary: SessionSummary, current: bool) -> Entry:
    prompt = " ".join(summary.first_prompt.split()) or "(no message yet)"
    if len(prompt) > PROMPT_CHARS:
        prompt = prompt[: PROMPT_CHARS - 1] + "…"
    note = f"{started(summary.created)} · {counted(summary.turns, 'turn')} · {summary.id}"
    return Entry(summary.id, prompt, f"● current · {note}" if current else note)


def started(created: str) -> str:
    """An ISO time from a session file, in the local time zone: "2025-01-31 14:05"."""
    try:
        return dt.datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return created


__all__ = ["TAGLINE", "Conversations", "session_entry", "started"]
