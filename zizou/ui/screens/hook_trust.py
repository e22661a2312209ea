"""Whether to run a project's Python hook: its file, whether it is new or changed since it was
trusted, the start of its SHA-256, and its code (every hidden character spelled out, as an
approval shows a command). `y` trusts it as it is now; `n` or Esc leaves it untrusted.

It opens by itself at start-up, so it is a `GuardedScreen`: keys typed ahead go to the prompt.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from zizou.hooks.sources import HASH_CHARS
from zizou.plural import counted
from zizou.ui.screens.guarded import GuardedScreen
from zizou.ui.text import escape_controls

if TYPE_CHECKING:
    from zizou.hooks.runtime import HookSource
    from zizou.ui.widgets.messages import TypingClock

SHOWN_LINES = 100_000  # every line: the user trusts the whole file (at most 256 KiB)


class HookTrustScreen(GuardedScreen[bool]):
    AUTO_FOCUS = "#trust-code"
    FITTED = "#trust-code"
    OTHER_ROWS = 15

    def __init__(
        self, source: HookSource, changed: bool, typing: TypingClock | None = None
    ) -> None:
        super().__init__(typing)
        self.source = source
        self.changed = changed

    def compose(self) -> ComposeResult:
        source = self.source
        with Vertical(id="trust-dialog"):
            yield Label(Text("Run this project hook?", style="bold"), id="trust-title")
            yield Static(Text(source.name), id="trust-name")
            yield Static(Text(about(source, self.changed)), id="trust-about")
            with VerticalScroll(id="trust-code"):
                yield Static(code_text(source.text))
            yield Static(keys_text(source.name), id="trust-keys")

    def answer(self, key: str) -> bool:
        return self.yes_or_no(key)


def about(source: HookSource, changed: bool) -> str:
    state = (
        "CHANGED since you trusted it: read what it does now" if changed else "new: never trusted"
    )
    what = (
        "A command of the project's settings: it runs in the sandbox, on its event."
        if source.kind == "command"
        else "Python the repository brought: it runs inside zizou, as you, before every model step."
    )
    return f"{state} · sha256 {source.sha256[:HASH_CHARS]}\n{what}"


def code_text(code: str, limit: int = SHOWN_LINES) -> Text:
    """The hook's code, numbered, up to `limit` lines; controls and invisible characters
    spelled out."""
    lines = code.expandtabs(4).splitlines()
    width = len(str(min(len(lines), limit)))
    text = Text()
    for number, line in enumerate(lines[:limit], 1):
        text.append(f"{number:>{width}} ", style="dim")
        text.append(escape_controls(line, keep_newlines=False) + "\n")
    if len(lines) > limit:
        more = len(lines) - limit
        text.append(
            f"… {counted(more, 'more line')}: read the whole file before you trust it", "italic"
        )
    elif not lines:
        text.append("(empty)", style="dim")
    return text


def keys_text(name: str) -> Text:
    text = Text()
    text.append(" y ", style="bold reverse")
    text.append(" trust it as it is now, and run it   ")
    text.append(" n ", style="bold reverse")
    text.append(" not now (Esc)")
    text.append(f"\n/hooks trust {name} asks again; /hooks lists the hooks.", style="dim")
    return text


__all__ = ["HookTrustScreen", "about", "code_text"]
