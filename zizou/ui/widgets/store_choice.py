"""Where to keep a key when there is no OS keyring: a file only the user can read, or an env var.

It says why it asks and posts `Chosen` with the answer; the wizard does the saving. The key
itself never reaches this widget, and the export line it shows has a placeholder for it.
"""

from __future__ import annotations

from typing import Literal

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from zizou.providers.catalog import Provider
from zizou.ui.key_setup import export_line

Store = Literal["file", "env"]


class StoreChoice(Vertical):
    class Chosen(Message):
        def __init__(self, store: Store) -> None:
            super().__init__()
            self.store = store

    def compose(self) -> ComposeResult:
        yield Static("", id="store-why")
        yield OptionList(id="store-list")

    def prepare(self, provider: Provider, headline: str, why: str, keys_file: str) -> None:
        """Ask where to keep `provider`'s key; `why` says why the OS keyring is not an option."""
        text = Text(f"{headline} ", style="bold")
        text.append(f"{why}\nWhere should zizou find it from now on?")
        self.query_one("#store-why", Static).update(text)
        file_label = Text("Save it in a file only you can read", style="bold")
        file_label.append(f"\n  {keys_file} (mode 0600, in your user config dir)", style="dim")
        env_label = Text(f"Use the environment variable {provider.env_var}", style="bold")
        env_label.append(
            "\n  nothing is saved; this session uses the key, and for later runs add this line "
            f"to your shell profile:\n  {export_line(provider)}",
            style="dim",
        )
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(file_label, id="file"), Option(env_label, id="env")])
        options.highlighted = 0

    def focus_choices(self) -> None:
        self.query_one(OptionList).focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.post_message(self.Chosen("file" if event.option.id == "file" else "env"))


__all__ = ["StoreChoice"]
