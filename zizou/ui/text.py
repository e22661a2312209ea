"""Making model and tool text safe to show: no escape sequences, controls made visible.

Model and tool text is never parsed as markup (widgets get `rich.text.Text` or `markup=False`);
this module removes what a terminal would act on, and, for approvals, shows every character that
could hide part of a command.
"""

from __future__ import annotations

import json
import re
from typing import Any

from zizou.terminal_text import strip_terminal_controls

# A possibly unfinished escape sequence at the end of a chunk: held back until the next one.
_PARTIAL_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*|[PX^_][^\x1b]*|[ -/]*)?\Z")
_MAX_HELD = 256
# Characters that change how the rest of a line is shown: bidi overrides and zero-width ones.
_INVISIBLE = frozenset(
    "\u200b\u200c\u200d\u2060\ufeff\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_NAMED = {"\t": "\\t", "\r": "\\r", "\x1b": "\\x1b", "\x00": "\\0"}


def clean(text: str) -> str:
    """Whole text with terminal control sequences removed."""
    return strip_terminal_controls(text)


class StreamSanitizer:
    """Cleans streamed text chunk by chunk, holding back an escape sequence cut in two."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, chunk: str) -> str:
        text = self._held + chunk
        self._held = ""
        match = _PARTIAL_ESCAPE.search(text)
        if match and len(text) - match.start() <= _MAX_HELD:
            self._held = text[match.start() :]
            text = text[: match.start()]
        return _clean_stream(text)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return _clean_stream(text)


# Every escape sequence starts with one of these (ESC is 0x1b), as does a `\r`: text with none of
# them is what a terminal would show as it is. Searched for first: a streamed answer is cleaned
# at every flush, and seldom has any.
_ANY_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _clean_stream(text: str) -> str:
    if _ANY_CONTROL.search(text) is None:
        return text
    return strip_terminal_controls(text.replace("\r\n", "\n").replace("\r", ""))


def escape_controls(text: str, *, keep_newlines: bool = True) -> str:
    """Every control or invisible character spelled out (`\\x1b`, `\\t`, `\\u202e`)."""
    out: list[str] = []
    for ch in text:
        code = ord(ch)
        if ch == "\n" and keep_newlines:
            out.append(ch)
        elif ch in _NAMED:
            out.append(_NAMED[ch])
        elif code < 32 or code == 127 or 0x80 <= code < 0xA0:
            out.append(f"\\x{code:02x}")
        elif ch in _INVISIBLE:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def one_line(text: str, width: int) -> str:
    """`text` on one line, controls escaped, cut to `width` characters with an ellipsis."""
    flat = escape_controls(" ".join(text.split()), keep_newlines=False)
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


def parse_arguments(arguments: str) -> dict[str, Any] | None:
    try:
        data = json.loads(arguments or "{}")
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def pretty_arguments(arguments: str) -> str:
    data = parse_arguments(arguments)
    if data is None:
        return arguments
    return json.dumps(data, indent=2, ensure_ascii=False)


__all__ = [
    "StreamSanitizer",
    "clean",
    "escape_controls",
    "one_line",
    "parse_arguments",
    "pretty_arguments",
]
