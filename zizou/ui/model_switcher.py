"""What the session runs on: `/model`, `/models`, `/keys` (the key wizard), and the key problem
the session may open with. Listing the models looks keys up (the keyring may be slow), so it
runs in a worker; the wizard runs its own look-ups in threads."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING

from zizou.errors import ZizouError
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.screens.picker import Entry, PickerScreen

if TYPE_CHECKING:
    from zizou.providers.catalog import Provider
    from zizou.ui.host import Host, Notices
    from zizou.ui.key_setup import KeyServices, SetupResult
    from zizou.ui.model_list import ModelEntry
    from zizou.ui.opening import Opening
    from zizou.ui.session import SetupMode
    from zizou.ui.widgets.messages import NoticeKind
    from zizou.ui.widgets.status_bar import StatusBar

PICK_FIX = "/keys sets up a key; /models picks one."
LISTING = "listing the models…"


class ModelSwitcher:
    def __init__(
        self,
        host: Host,
        opening: Opening,
        notices: Notices,
        status: StatusBar,
        keys: KeyServices | None = None,
        setup: SetupMode = None,
    ) -> None:
        self.host = host
        self.opening = opening
        self.notices = notices
        self.status = status
        self._keys = keys
        self.setup = setup  # "setup" or "reset": the key wizard once the session is open

    @property
    def keys(self) -> KeyServices:
        """The key API as the wizard and `/models` use it."""
        if self._keys is None:
            from zizou.ui.key_setup import KeyServices

            self._keys = KeyServices()
        return self._keys

    @property
    def model_id(self) -> str:
        return self.opening.current.model_id

    async def say(self, text: str, kind: NoticeKind = "info", fix: str | None = None) -> None:
        await self.notices.add_notice(text, kind, fix)

    async def check_opened(self) -> None:
        """The session just opened: a model it cannot use is said (with the key wizard when a
        key is missing), else `--setup` / `--reset` open the wizard."""
        session = self.opening.current
        if session.model_problem:
            wizard = session.model_problem_kind in ("missing_key", "usage")
            await self.key_problem(session.model_problem, wizard=wizard)
        elif self.setup is not None:
            self.open_setup(reset=self.setup == "reset")

    # --- /model and /models ----------------------------------------------------------------

    async def model(self, args: list[str]) -> None:
        if not args:
            await self.say(
                f"Model: {self.model_id}",
                fix="/model PROVIDER MODEL or /model PROVIDER/MODEL switches it; "
                "/models lists them.",
            )
            return
        await self.switch_model("/".join(args[:2]) if len(args) >= 2 else args[0])

    async def switch_model(self, model_id: str) -> None:
        try:
            self.opening.current.switch_model(model_id)
        except ZizouError as exc:
            await self.key_problem(str(exc), model_id)
            return
        self.host.post_message(SessionChanged())
        await self.say(f"Model: {model_id} (from the next request on).", "success")

    async def models(self, args: list[str]) -> None:
        self.host.run_worker(self._pick_model(), group="models", exclusive=True)

    async def _pick_model(self) -> None:
        current, before = self.model_id, self.status.state
        self.status.state = LISTING
        entries = await asyncio.to_thread(_model_entries, current, self.keys.environ)
        if self.status.state == LISTING:  # a turn may have said something since
            self.status.state = before

        async def picked(model_id: str | None) -> None:
            if model_id and model_id != current:
                await self.switch_model(model_id)

        rows = [Entry(e.model_id, e.model_id, e.note) for e in entries]
        self.host.post_message(ShowScreen(PickerScreen("Pick a model", rows), picked))

    # --- /keys and the wizard --------------------------------------------------------------

    async def keys_command(self, args: list[str]) -> None:
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
        self.open_for_model(model_id or self.model_id, problem)

    def open_setup(self, *, reset: bool) -> None:
        """`--setup`: the wizard; `--reset`: straight to a new key for the model's provider (the
        old key stays until the new one checks out)."""
        from zizou.providers.catalog import find_provider, provider_of

        owner = find_provider(provider_of(self.model_id))
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
            self.keys, target or self.model_id, provider=provider, replace=replace, problem=problem
        )
        self.host.post_message(ShowScreen(screen, self.apply))

    async def apply(self, result: SetupResult | None) -> None:
        session = self.opening.current
        if result is None:
            if session.model_problem:
                await self.say("No model is usable yet.", "warning", PICK_FIX)
            return
        try:
            session.switch_model(result.model, api_key=result.api_key, api_base=result.api_base)
        except ZizouError as exc:
            await self.say(str(exc), "error", "/keys tries again.")
            return
        for note in result.notes:
            await self.say(note, "success")
        await self.say(f"Model: {result.model} (from the next request on).", "success")
        self.host.post_message(SessionChanged())


def _model_entries(current: str, environ: Mapping[str, str]) -> list[ModelEntry]:
    from zizou.config.keys import resolve_key
    from zizou.ui.model_list import local_model_map, model_entries

    def has_key(provider: Provider) -> bool:
        return not provider.needs_key or resolve_key(provider.id, environ=environ) is not None

    return model_entries(current, has_key, local_model_map())


__all__ = ["ModelSwitcher"]
