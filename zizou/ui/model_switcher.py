"""What the session runs on: `/model`, `/models`, `/modelid`, `/ollama`, `/keys` (the key
wizard), and the key problem the session may open with. Listing the models looks keys up (the
keyring may be slow) and `/ollama` asks the server for its models, so they run in workers; the
wizard runs its own look-ups in threads.

`/ollama URL` keeps the server's address for the session: an Ollama model in use is reopened
there at once, and any Ollama model switched to later (`/model ollama_chat/NAME`) goes there."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zizou.errors import ZizouError
from zizou.ui.host import SessionChanged, ShowScreen
from zizou.ui.screens.picker import Entry, PickerScreen
from zizou.ui.slash_registry import slash

if TYPE_CHECKING:
    from zizou.contracts.protocols import Model
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
OLLAMA_USAGE = "/ollama URL, such as /ollama http://127.0.0.1:11434"


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
        self.ollama_base: str | None = None  # `/ollama URL`: where Ollama models are reached

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

    @slash("model", "[provider] [model]", help="show or switch the model", section="model")
    async def model(self, args: list[str]) -> None:
        if not args:
            await self.say(
                f"Model: {self.model_id}",
                fix="/model PROVIDER MODEL or /model PROVIDER/MODEL switches it; "
                "/models lists them.",
            )
            return
        await self.switch_model("/".join(args[:2]) if len(args) >= 2 else args[0])

    @slash("modelid", help="the model's id, and the address it is reached at", section="model")
    async def model_id_command(self, args: list[str]) -> None:
        """/modelid: the id, and the address the model is reached at when it has its own."""
        base = api_base_of(self.opening.current.kernel.model)
        await self.say(f"Model: {self.model_id}" + (f" at {base}" if base else ""))

    async def switch_model(self, model_id: str) -> None:
        base = self.ollama_base if _is_ollama(model_id) else None
        try:
            self.opening.current.switch_model(model_id, api_base=base)
        except ZizouError as exc:
            await self.key_problem(str(exc), model_id)
            return
        self.host.post_message(SessionChanged())
        await self.say(f"Model: {model_id} (from the next request on).", "success")

    @slash("models", help="pick a model from a list", section="model")
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
        self.host.post_message(
            ShowScreen(PickerScreen("Pick a model", rows, filtering=True), picked)
        )

    # --- /ollama ---------------------------------------------------------------------------

    @slash("ollama", "URL", help="talk to the Ollama server at URL", section="model")
    async def ollama(self, args: list[str]) -> None:
        """/ollama URL: Ollama models are reached at URL for the rest of the session."""
        from zizou.providers.key_check import ollama_base

        if not args or not args[0].startswith(("http://", "https://")):
            where = f"Ollama models go to {self.ollama_base}. " if self.ollama_base else ""
            await self.say(f"{where}Which Ollama server?", "warning", OLLAMA_USAGE)
            return
        self.ollama_base = ollama_base(args[0])
        if _is_ollama(self.model_id):
            await self.switch_model(self.model_id)
            await self.say(f"{self.model_id} is reached at {self.ollama_base} from now on.")
            return
        self.host.run_worker(self._ollama_models(self.ollama_base), group="models", exclusive=True)

    async def _ollama_models(self, base: str) -> None:
        """Which models the server has, to say what to switch to (the current model is not
        an Ollama one, so it stays)."""
        kept = f"Ollama models go to {base} from now on; the model is still {self.model_id}."
        try:
            names = await asyncio.to_thread(self.keys.ollama_models, base)
        except ZizouError as exc:
            why = str(exc).rstrip(".")
            await self.say(f"{kept} But: {why}.", "warning", "/model ollama_chat/NAME switches.")
            return
        if not names:
            await self.say(kept, fix="It has no models yet: `ollama pull NAME` fetches one.")
            return
        from zizou.ui.key_setup import ollama_model_id

        ids = ", ".join(ollama_model_id(name) for name in names[:10])
        more = f" and {len(names) - 10} more" if len(names) > 10 else ""
        first = ollama_model_id(names[0])
        await self.say(f"{kept} It has {ids}{more}.", fix=f"/model {first} switches to one.")

    # --- /keys and the wizard --------------------------------------------------------------

    @slash(
        "keys", "[provider]", help="set up a provider's API key (the key wizard)", section="model"
    )
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


def _is_ollama(model_id: str) -> bool:
    from zizou.providers import OLLAMA_ROUTES, provider_of

    return provider_of(model_id) in OLLAMA_ROUTES


def api_base_of(model: Model) -> str | None:
    """The address a model is reached at, when it was given one: the innermost of the
    wrappers (retries, the JSON protocol) knows it."""
    found: Any = model
    for _ in range(8):
        base = getattr(found, "api_base", None)
        if isinstance(base, str) and base:
            return base
        found = getattr(found, "inner", None)
        if found is None:
            break
    return None


def _model_entries(current: str, environ: Mapping[str, str]) -> list[ModelEntry]:
    from zizou.config.keys import resolve_key
    from zizou.ui.model_list import local_model_map, model_entries

    def has_key(provider: Provider) -> bool:
        return not provider.needs_key or resolve_key(provider.id, environ=environ) is not None

    return model_entries(current, has_key, local_model_map())


__all__ = ["ModelSwitcher", "api_base_of"]
