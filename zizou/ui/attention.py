"""Calling the person back to the terminal: when a turn that ran longer than `[notify]
after_s` finishes, or when an approval (or the spending cap's question) waits, zizou rings the
terminal bell and, where the terminal shows them, sends a desktop notification: OSC 9 (iTerm2)
or OSC 777 (`notify`: WezTerm, Ghostty, foot, rxvt-unicode). `bell` and `desktop` in
`[notify]` turn each off; `desktop = "osc9"` or `"osc777"` forces one where zizou cannot tell
(inside tmux it is then passed through, which needs `set -g allow-passthrough on`).

The sequences are built here, purely; the app writes them to the terminal through its driver,
as soon as the moment comes (no timer, nothing queued behind the screen's updates).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from zizou.config.settings import NotifySettings

Desktop = Literal["osc9", "osc777"]
BEL = "\a"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f;]+")  # controls end the sequence; ";" splits 777's
MAX_TEXT = 200


def desktop_protocol(setting: str, environ: Mapping[str, str]) -> Desktop | None:
    """Which desktop notification the terminal shows: the setting's, or for "auto" the one
    the terminal is known to show (None: none, or not one zizou can tell from inside tmux)."""
    if setting in ("osc9", "osc777"):
        return "osc9" if setting == "osc9" else "osc777"
    if setting != "auto" or environ.get("TMUX"):
        return None
    program = environ.get("TERM_PROGRAM", "")
    term = environ.get("TERM", "")
    if program == "iTerm.app":
        return "osc9"
    if program in ("WezTerm", "ghostty") or term.startswith(("rxvt-unicode", "foot")):
        return "osc777"
    return None


def _clean(text: str) -> str:
    return _UNSAFE.sub(" ", text).strip()[:MAX_TEXT]


def notification(protocol: Desktop, title: str, body: str, tmux: bool = False) -> str:
    """The escape sequence of a desktop notification (wrapped for tmux's passthrough)."""
    if protocol == "osc9":
        sequence = f"\x1b]9;{_clean(f'{title}: {body}')}\a"
    else:
        sequence = f"\x1b]777;notify;{_clean(title)};{_clean(body)}\a"
    if tmux:
        sequence = "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"
    return sequence


class Attention:
    """Rings and notifies as `[notify]` says (`settings`: read when it is time to, as the app
    reads them from the session it opens after the first frame); `write` puts text on the
    terminal."""

    def __init__(
        self,
        settings: Callable[[], NotifySettings],
        write: Callable[[str], None],
        environ: Mapping[str, str],
    ) -> None:
        self.settings_now = settings
        self.write = write
        self.environ = environ
        self.tmux = bool(environ.get("TMUX"))

    @property
    def settings(self) -> NotifySettings:
        return self.settings_now()

    @property
    def protocol(self) -> Desktop | None:
        return desktop_protocol(self.settings.desktop, self.environ)

    def call(self, body: str, title: str = "zizou") -> None:
        """Call the person back: the bell, then the desktop notification, as set."""
        out = BEL if self.settings.bell else ""
        if self.protocol is not None:
            out += notification(self.protocol, title, body, self.tmux)
        if out:
            self.write(out)

    def turn_finished(self, seconds: float, how: str) -> bool:
        """A turn ended after `seconds`: call back when it ran past `after_s`; whether it did."""
        if seconds < self.settings.after_s:
            return False
        self.call(f"the turn {how} after {round(seconds)} s")
        return True


__all__ = ["Attention", "desktop_protocol", "notification"]
