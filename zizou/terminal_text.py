"""Text as a terminal would leave it: escape sequences removed, `\\r` overwrites kept to the last.

A command's output, a hook's print, a provider's error: whatever zizou shows or hands on was
written for a terminal. This sits at the bottom of the package, beside the redactor, so the app's
first frame and the tools share it without one importing the other.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (titles, hyperlinks)
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI (colours, cursor movement)
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # other escapes, or a lone ESC
    r"|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"  # other controls (C0 but \t \n \r, DEL, C1)
)


def strip_terminal_controls(text: str) -> str:
    """Text as a terminal would leave it: no escape sequences, `\\r` overwrites kept to the last."""
    text = _CONTROL.sub("", text).replace("\r\n", "\n")
    lines = text.split("\n")
    return "\n".join(_last_overwrite(line) for line in lines)


def _last_overwrite(line: str) -> str:
    if "\r" not in line:
        return line
    return next((part for part in reversed(line.split("\r")) if part), "")


__all__ = ["strip_terminal_controls"]
