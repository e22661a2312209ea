"""The wizard's key step: what to paste and where to get it, and a masked field for the key.
The key stays in the field after a failed check, so it can be corrected."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Input, Static

from zizou.ui.key_setup import ProviderRow


class KeyEntry(Vertical):
    def compose(self) -> ComposeResult:
        yield Static("", id="key-prompt")
        yield Input(password=True, id="key-input", placeholder="paste the key here")

    @property
    def value(self) -> str:
        return self.query_one(Input).value.strip()

    def ask(self, row: ProviderRow) -> None:
        """An empty field for `row`'s provider, focused."""
        provider = row.provider
        prompt = Text(f"Paste your {provider.name} API key.", style="bold")
        if provider.key_url:
            prompt.append(f" Create one at {provider.key_url}")
        prompt.append("\nIt is checked with one request before anything is saved")
        if row.stored:
            prompt.append(f"; it replaces the {row.status}.")
        elif row.key is not None:
            prompt.append(f". Note: the {row.status} wins over a saved key in later runs.")
        else:
            prompt.append(".")
        self.query_one("#key-prompt", Static).update(prompt)
        field = self.query_one(Input)
        field.value = ""
        field.focus()

    def focus_field(self) -> None:
        self.query_one(Input).focus()


__all__ = ["KeyEntry"]
