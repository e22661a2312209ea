"""The key wizard: pick a provider, paste its key (masked), see it checked live, and keep it.

Steps: the providers (where each key comes from now), the key, where to keep it (asked only
without a usable OS keyring), and for Ollama its address, then one of its models. Keyring and
HTTP calls run in a thread behind a spinner; Esc abandons them or steps back. Nothing is saved
and the model is unchanged until a key checks out: the screen returns a `SetupResult` or None.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import ContentSwitcher, Input, Label, Static

from zizou.ui.background import BackgroundCalls
from zizou.ui.key_setup import (
    KeyServices,
    ProviderRow,
    SetupResult,
    export_line,
    key_result,
    ollama_result,
    store_words,
)
from zizou.ui.widgets.key_entry import KeyEntry
from zizou.ui.widgets.ollama_setup import OllamaSetup
from zizou.ui.widgets.provider_list import ProviderList
from zizou.ui.widgets.spinner import Spinner
from zizou.ui.widgets.store_choice import StoreChoice

if TYPE_CHECKING:
    from zizou.config.keys import StoreStatus, Validation

HINTS = {
    "providers": "↑/↓ choose · Enter set up · d forget a stored key · Esc close",
    "key": "Enter checks the key · Esc back",
    "retry": "Enter checks again · Ctrl+S keeps it unchecked · Esc back",
    "store": "↑/↓ choose · Enter confirm · Esc back",
    "ollama": "Enter goes on · Esc back",
    "busy": "Esc cancels",
}


class KeyWizardScreen(ModalScreen[SetupResult | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+s", "keep_unchecked", "Keep unchecked", show=False),
    ]

    def __init__(
        self,
        services: KeyServices,
        target_model: str,
        *,
        provider: str | None = None,
        replace: bool = False,
        problem: str | None = None,
    ) -> None:
        super().__init__()
        self.services = services
        self.target_model = target_model  # kept if its provider is set up, else the default
        self.wanted = provider  # highlighted first; with `replace`, set up at once
        self.replace = replace
        self.problem = problem
        self.store: StoreStatus | None = None
        self.row: ProviderRow | None = None  # the provider being set up
        self.key = ""  # the key to keep, once it checked out
        self.headline = ""
        self.unreachable = False  # the last check could not reach the provider

    def compose(self) -> ComposeResult:
        with Vertical(id="wizard-dialog"):
            yield Label(Text("Set up a model provider", style="bold"), id="wizard-title")
            if self.problem:
                yield Static(Text(self.problem), id="wizard-problem")
            with ContentSwitcher(initial="step-providers", id="wizard-steps"):
                yield ProviderList(id="step-providers")
                yield KeyEntry(id="step-key")
                yield StoreChoice(id="step-store")
                yield OllamaSetup(id="step-ollama")
            yield Spinner(id="wizard-spinner")
            yield Static("", id="wizard-message", classes="-info")
            yield Static("", id="wizard-keys")

    def on_mount(self) -> None:
        self.calls = BackgroundCalls(self, self.query_one(Spinner), self._failed, self._hint)
        self.query_one(ProviderList).focus_list()
        self._load_rows()

    @property
    def step(self) -> str:
        current = self.query_one("#wizard-steps", ContentSwitcher).current or ""
        return current.removeprefix("step-")

    def show_step(self, step: str) -> None:
        self.query_one("#wizard-steps", ContentSwitcher).current = f"step-{step}"
        self._hint()

    def say(self, message: str, kind: str = "info") -> None:
        label = self.query_one("#wizard-message", Static)
        label.set_classes(f"-{kind}")
        label.update(Text(message))
        label.display = bool(message)

    def _hint(self) -> None:
        step = "retry" if self.step == "key" and self.unreachable else self.step
        hint = HINTS["busy"] if self.calls.busy else HINTS.get(step, "")
        self.query_one("#wizard-keys", Static).update(Text(hint, style="dim"))

    def _failed(self, exc: Exception) -> None:
        self.say(str(exc) or type(exc).__name__, "error")

    # --- providers -------------------------------------------------------------------------

    def _load_rows(self) -> None:
        services, model = self.services, self.target_model
        self.calls.run(
            "looking for your keys…",
            lambda: (services.rows(model), services.store_status()),
            self._rows_loaded,
        )

    def _rows_loaded(self, loaded: tuple[list[ProviderRow], StoreStatus]) -> None:
        rows, self.store = loaded
        self.query_one(ProviderList).show(rows, store_words(self.store), self.wanted)
        wanted = [r for r in rows if r.provider.id == self.wanted]
        if self.replace and wanted:
            self.replace = False
            self.pick(wanted[0])

    @on(ProviderList.Picked)
    def _provider_picked(self, event: ProviderList.Picked) -> None:
        event.stop()
        self.pick(event.row)

    def pick(self, row: ProviderRow) -> None:
        self.row, self.unreachable = row, False
        self.say("")
        if row.provider.needs_key:
            self.show_step("key")
            self.query_one(KeyEntry).ask(row)
        else:
            self.show_step("ollama")
            self.query_one(OllamaSetup).start(row.provider.base_url)

    @on(ProviderList.Forget)
    def _forget(self, event: ProviderList.Forget) -> None:
        from zizou.ui.screens.confirm import ConfirmScreen

        event.stop()
        row, forget = event.row, self.services.forget
        if self.calls.busy:
            return
        if not row.stored:
            self.say(f"zizou stores no key for {row.provider.name}: nothing to forget.", "warning")
            return

        def forgotten(places: list[str]) -> None:
            self.say(
                f"Forgot the key for {row.provider.name} (removed from {', '.join(places)}); "
                "a model already open keeps it until it is switched.",
                "success",
            )
            self._load_rows()

        def answered(yes: bool | None) -> None:
            if yes:
                self.calls.run("forgetting the key…", lambda: forget(row.provider.id), forgotten)

        question = f"Forget the stored key for {row.provider.name}?"
        self.app.push_screen(ConfirmScreen(question, f"Now: {row.status}."), answered)

    # --- the key ---------------------------------------------------------------------------

    @on(Input.Submitted, "#key-input")
    def _key_entered(self, event: Input.Submitted) -> None:
        from zizou.config.keys import clean_key
        from zizou.errors import UsageError

        event.stop()
        if self.row is None or self.calls.busy:
            return
        try:
            key = clean_key(event.value)
        except UsageError as exc:
            self.say(str(exc), "error")
            return
        provider, check = self.row.provider, self.services.check
        self.say("")
        self.calls.run(
            f"checking the key with {provider.name}…",
            lambda: check(provider.id, key),
            lambda result: self._checked(key, result),
        )

    def _checked(self, key: str, result: Validation) -> None:
        if not result.ok:  # the key stays in the field, and nothing else changes
            self.unreachable = not result.rejected
            self.say(result.message, "error")
            self.query_one(KeyEntry).focus_field()
            return
        self.say(result.message, "success")
        self.keep(key)

    def action_keep_unchecked(self) -> None:
        if self.step == "key" and self.unreachable and not self.calls.busy:
            self.say("")
            self.keep(self.query_one(KeyEntry).value, checked=False)

    def keep(self, key: str, *, checked: bool = True) -> None:
        """Keep the key: in the OS keyring when there is one, else ask where."""
        assert self.row is not None
        self.key = key
        self.headline = "The key works." if checked else "The key was not checked."
        if self.store is None or self.store.kind != "keyring":
            self._ask_store(self.store.detail if self.store else "")
            return
        provider, save = self.row.provider, self.services.save
        self.calls.run(
            "saving the key in the OS keyring…",
            lambda: save(provider.id, key, "keyring"),
            lambda where: self.finish(f"Saved the key for {provider.name} in {where}."),
            lambda exc: self._ask_store(str(exc)),
        )

    def _ask_store(self, why: str) -> None:
        assert self.row is not None
        reason = f"It cannot go in an OS keyring: {why}." if why else ""
        choice = self.query_one(StoreChoice)
        choice.prepare(self.row.provider, self.headline, reason, self.services.keys_file())
        self.show_step("store")
        choice.focus_choices()

    @on(StoreChoice.Chosen)
    def _store_chosen(self, event: StoreChoice.Chosen) -> None:
        event.stop()
        assert self.row is not None
        provider, key, save = self.row.provider, self.key, self.services.save
        if event.store == "env":
            line = export_line(provider)
            self.finish(f"Nothing was saved. For later runs, add to your shell profile: {line}")
            return
        self.calls.run(
            "saving the key to the file…",
            lambda: save(provider.id, key, "file"),
            lambda where: self.finish(f"Saved the key for {provider.name} in {where}."),
        )

    def finish(self, note: str) -> None:
        assert self.row is not None
        self.dismiss(key_result(self.row, self.target_model, self.key, note))

    # --- Ollama ----------------------------------------------------------------------------

    @on(OllamaSetup.Lookup)
    def _ollama_lookup(self, event: OllamaSetup.Lookup) -> None:
        from zizou.providers.key_check import ollama_base

        event.stop()
        url, listing = ollama_base(event.url), self.services.ollama_models
        self.say("")
        self.calls.run(
            f"asking Ollama at {url} for its models…",
            lambda: listing(url),
            lambda models: self.query_one(OllamaSetup).show_models(url, models, self.target_model),
        )

    @on(OllamaSetup.Picked)
    def _ollama_picked(self, event: OllamaSetup.Picked) -> None:
        event.stop()
        self.dismiss(ollama_result(event.url, event.name))

    # --- leaving ---------------------------------------------------------------------------

    def action_back(self) -> None:
        if self.calls.cancel():  # the late answer is ignored
            self.say("Cancelled: nothing was changed.", "warning")
        elif self.step == "ollama" and self.query_one(OllamaSetup).back():
            self.say("")
        elif self.step == "store":
            self.show_step("key")
            self.query_one(KeyEntry).focus_field()
        elif self.step != "providers":
            self.say("")
            self.show_step("providers")
            self.query_one(ProviderList).focus_list()
        else:
            self.dismiss(None)
        self._hint()


__all__ = ["KeyWizardScreen"]
