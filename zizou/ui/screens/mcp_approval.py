"""Whether to start the MCP servers of the project's `.mcp.json`: the file, whether it is new or
changed since it was approved, and each server's exact command line or URL (every hidden
character spelled out). `y` approves the file as it is now and starts them; `n` or Esc starts
none.

It opens by itself at start-up, so it is a `GuardedScreen`: keys typed ahead go to the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from zizou.ui.screens.guarded import GuardedScreen
from zizou.ui.text import escape_controls

if TYPE_CHECKING:
    from zizou.ui.widgets.messages import TypingClock


class McpApprovalScreen(GuardedScreen[bool]):
    AUTO_FOCUS = "#trust-code"
    FITTED = "#trust-code"
    OTHER_ROWS = 14

    def __init__(self, listing: str, changed: bool, typing: TypingClock | None = None) -> None:
        super().__init__(typing)
        self.listing = listing
        self.changed = changed

    def compose(self) -> ComposeResult:
        state = "CHANGED since you approved it" if self.changed else "new: never approved"
        with Vertical(id="trust-dialog"):
            yield Label(Text("Start this project's MCP servers?", style="bold"), id="trust-title")
            yield Static(Text(".mcp.json"), id="trust-name")
            yield Static(
                Text(
                    f"{state}\nPrograms the repository names: they would run as you (in the "
                    "command sandbox when there is one), and their tools would be offered to "
                    "the model, each call asked for."
                ),
                id="trust-about",
            )
            with VerticalScroll(id="trust-code"):
                yield Static(Text(escape_controls(self.listing)))
            yield Static(keys_text(), id="trust-keys")

    def answer(self, key: str) -> bool:
        return self.yes_or_no(key)


def keys_text() -> Text:
    text = Text()
    text.append(" y ", style="bold reverse")
    text.append(" approve it as it is now, and start them   ")
    text.append(" n ", style="bold reverse")
    text.append(" not now (Esc)")
    text.append("\n/mcp approve asks again; /mcp lists the servers.", style="dim")
    return text


__all__ = ["McpApprovalScreen"]
