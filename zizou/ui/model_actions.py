"""The slash commands about what the session runs on: `/model`, `/models`, `/keys` (the key
wizard) and `/sessions` (list and resume). Slow look-ups (the keyring, the model map, session
files) run in workers, so the prompt stays live."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING

from zizou.errors import ZizouError
from zizou.ui.screens.picker import Entry, PickerScreen

if TYPE_CHECKING:
    from zizou.providers.catalog import Provider
    from zizou.sessions.store import SessionSummary
    from zizou.ui.app import ZizouApp
    from zizou.ui.key_setup import SetupResult
    from zizou.ui.model_list import ModelEntry

PROMPT_CHARS = 60


class ModelActions:
    def __init__(self, app: ZizouApp) -> None:
        self.app = app

    async def say(self, text: str, kind: str = "info", fix: str | None = None) -> None:
        await self.app.chat.add_notice(text, kind, fix)  # type: ignore[arg-type]

    # --- /model and /models ----------------------------------------------------------------

    async def model(self, args: list[str]) -> None:
        if not args:
            await self.say(
                f"Model: {self.app.session.model_id}",
                fix="/model PROVIDER MODEL or /model PROVIDER/MODEL switches it; "
                "/models lists them.",
            )
            return
        await self.switch_model("/".join(args[:2]) if len(args) >= 2 else args[0])

    async def switch_model(self, model_id: str) -> None:
        try:
            self.app.session.switch_model(model_id)
        except ZizouError as exc:
            await self.key_problem(str(exc), model_id)
            return
        self.app.refresh_sidebar()
        await self.say(f"Model: {model_id} (from the next request on).", "success")

    async def models(self, args: list[str]) -> None:
        self.app.run_worker(self._pick_model(), group="models", exclusive=True)

    async def _pick_model(self) -> None:
        current = self.app.session.model_id
        self.app.set_status("listing the models…")
        entries = await asyncio.to_thread(_model_entries, current, self.app.keys.environ)
        self.app.set_status("ready")

        async def picked(model_id: str | None) -> None:
            if model_id and model_id != current:
                await self.switch_model(model_id)

        rows = [Entry(e.model_id, e.model_id, e.note) for e in entries]
        self.app.push_screen(PickerScreen("Pick a model", rows), picked)

    # --- /keys and the wizard --------------------------------------------------------------

    async def keys(self, args: list[str]) -> None:
        self.open_wizard(provider=args[0].lower() if args else None)

    async def key_problem(
        self, problem: str, model_id: str | None = None, *, wizard: bool = True
    ) -> None:
        """The model is unusable (default: the session's): say so, and for a missing key open
        the key wizard when zizou can set up keys for its provider (`wizard`; a misspelt model
        id is no key problem: then the message and /models are the way on)."""
        if not wizard:
            await self.say(problem, "error", "/models picks a model; /model switches by id.")
            return
        await self.say(problem, "error", "/keys sets up a key; /models picks a model.")
        self.open_for_model(model_id or self.app.session.model_id, problem)

    def open_setup(self, *, reset: bool) -> None:
        """`--setup`: the wizard; `--reset`: straight to a new key for the model's provider (the
        old key stays until the new one checks out)."""
        from zizou.providers.catalog import find_provider, provider_of

        owner = find_provider(provider_of(self.app.session.model_id))
        provider = owner.id if owner is not None else None
        self.open_wizard(provider=provider, replace=reset and provider is not None)

    def open_for_model(self, model_id: str, problem: str) -> None:
        """No key for `model_id`: the wizard for its provider, if zizou can set up its keys."""
        from zizou.providers.catalog import find_provider, provider_of

        owner = find_provider(provider_of(model_id))
        if owner is not None and owner.needs_key:
            self.open_wizard(target=model_id, provider=owner.id, problem=problem)

    def open_wizard(
        self,
        *,
        target: str | None = None,
        provider: str | None = None,
        replace: bool = False,
        problem: str | None = None,
    ) -> None:
        """The key wizard for the session's model (or `target`); what it settles is applied."""
        from zizou.ui.screens.key_wizard import KeyWizardScreen

        screen = KeyWizardScreen(
            self.app.keys,
            target or self.app.session.model_id,
            provider=provider,
            replace=replace,
            problem=problem,
        )
        self.app.push_screen(screen, self.apply)

    async def apply(self, result: SetupResult | None) -> None:
        if result is None:
            if self.app.session.model_problem:
                await self.say(
                    "No model is usable yet.", "warning", "/keys sets up a key; /models picks one."
                )
            return
        try:
            self.app.session.switch_model(
                result.model, api_key=result.api_key, api_base=result.api_base
            )
        except ZizouError as exc:
            await self.say(str(exc), "error", "/keys tries again.")
            return
        for note in result.notes:
            await self.say(note, "success")
        await self.say(f"Model: {result.model} (from the next request on).", "success")
        self.app.refresh_sidebar()

    # --- /sessions -------------------------------------------------------------------------

    async def sessions(self, args: list[str]) -> None:
        self.app.run_worker(self._pick_session(), group="sessions", exclusive=True)

    async def _pick_session(self) -> None:
        from zizou.sessions.store import SessionStore

        store = SessionStore(self.app.session.root)
        summaries = await asyncio.to_thread(store.list)
        current = self.app.session.runtime.session_id
        entries = [session_entry(s, s.id == current) for s in summaries]

        async def picked(session_id: str | None) -> None:
            if session_id and session_id != current:
                await self.resume(session_id)

        self.app.push_screen(PickerScreen("Resume a session of this project", entries), picked)

    async def resume(self, session_id: str) -> None:
        from zizou.ui.resumed import show_resumed
        from zizou.ui.widgets.mascot import Mascot

        if self.app.busy:
            await self.say("A turn is running: press Esc to stop it first.", "warning")
            return
        try:
            self.app.session.resume(session_id)
        except ZizouError as exc:
            await self.say(str(exc), "error")
            return
        runtime = self.app.session.runtime
        await self.app.chat.clear()
        self.app.opening.conversation_dropped()
        await self.app.chat.mount(Mascot(self.app.tagline(), fade=False))
        await show_resumed(self.app.chat, self.app.session)
        await self.say(f"Resumed session {runtime.session_id}.", "success")
        for warning in runtime.warnings:
            await self.say(warning, "warning")
        self.app.refresh_sidebar()


def session_entry(summary: SessionSummary, current: bool) -> Entry:
    prompt = " ".join(summary.first_prompt.split()) or "(no message yet)"
    if len(prompt) > PROMPT_CHARS:
        prompt = prompt[: PROMPT_CHARS - 1] + "…"
    turns = f"{summary.turns} turn" + ("" if summary.turns == 1 else "s")
    note = f"{started(summary.created)} · {turns} · {summary.id}"
    return Entry(summary.id, prompt, f"● current · {note}" if current else note)


def started(created: str) -> str:
    """An ISO time from a session file, in the local time zone: "2025-01-31 14:05"."""
    try:
        return dt.datetime.fromisoformat(created).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return created


def _model_entries(current: str, environ: Mapping[str, str]) -> list[ModelEntry]:
    from zizou.config.keys import resolve_key
    from zizou.ui.model_list import local_model_map, model_entries

    def has_key(provider: Provider) -> bool:
        return not provider.needs_key or resolve_key(provider.id, environ=environ) is not None

    return model_entries(current, has_key, local_model_map())


__all__ = ["ModelActions", "session_entry", "started"]
