"""The Ollama part of the key wizard: the server's address, then one of the models it has.

It only shows and asks: `Lookup` asks the wizard to fetch the model list (in a thread, behind
the spinner), `show_models` hands the list down, and `Picked` says which model to use.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import ContentSwitcher, Input, OptionList, Static
from textual.widgets.option_list import Option

from zizou.ui.key_setup import ollama_model_id


class OllamaSetup(Vertical):
    class Lookup(Message):
        def __init__(self, url: str) -> None:
            super().__init__()
            self.url = url

    class Picked(Message):
        def __init__(self, url: str, name: str) -> None:
            super().__init__()
            self.url = url
            self.name = name

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.url = ""
        self.models: list[str] = []

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="ollama-address"):
            with Vertical(id="ollama-address"):
                yield Static(
                    Text(
                        "Where does Ollama listen? zizou asks it for the models you have "
                        "pulled. Ollama needs no key."
                    )
                )
                yield Input(id="ollama-url")
                yield Static("", id="ollama-empty")
            with Vertical(id="ollama-models"):
                yield Static("", id="ollama-found")
                yield OptionList(id="ollama-list")

    def start(self, default_url: str) -> None:
        """Ask for the address, `default_url` filled in."""
        self.query_one(ContentSwitcher).current = "ollama-address"
        url = self.query_one("#ollama-url", Input)
        url.value = default_url
        url.focus()

    @on(Input.Submitted, "#ollama-url")
    def _address(self, event: Input.Submitted) -> None:
        event.stop()
        url = event.value.strip()
        if url:
            self.post_message(self.Lookup(url))

    def show_models(self, url: str, models: list[str], current_model: str) -> None:
        """The models to pick from; with none, say how to get one and stay on the address."""
        if not models:
            self.query_one("#ollama-empty", Static).update(
                Text(
                    f"Ollama at {url} has no models yet: run `ollama pull qwen2.5-coder`, "
                    "then press Enter to look again."
                )
            )
            return
        self.url, self.models = url, models
        found = Text(f"{len(models)} models at {url}. ", style="bold")
        found.append("Pick the one to use:")
        self.query_one("#ollama-found", Static).update(found)
        options = self.query_one("#ollama-list", OptionList)
        options.clear_options()
        options.add_options([Option(Text(name), id=name) for name in models])
        current = [i for i, name in enumerate(models) if ollama_model_id(name) == current_model]
        options.highlighted = current[0] if current else 0
        self.query_one(ContentSwitcher).current = "ollama-models"
        options.focus()

    @on(OptionList.OptionSelected, "#ollama-list")
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Picked(self.url, self.models[event.option_index]))

    def back(self) -> bool:
        """From the model list back to the address; False when already there."""
        switcher = self.query_one(ContentSwitcher)
        if switcher.current != "ollama-models":
            return False
        switcher.current = "ollama-address"
        self.query_one("#ollama-url", Input).focus()
        return True


__all__ = ["OllamaSetup"]
