"""Keys typed while the app starts are kept as typed.

Until Textual puts the terminal in its own mode (a few hundred milliseconds in), the terminal is
in line mode: it echoes what is typed and turns Enter into a newline, so a message typed and sent
at once would arrive as text plus a newline. From the moment zizou knows it will open the app,
the terminal stops echoing and leaves keys alone; they wait, unaltered, for the app. What was
typed even before that (while Python started) is taken off the terminal at that moment and handed
to the app as typed-ahead text: each finished line is sent, the rest waits in the prompt. The
terminal's own settings come back when the app ends.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import termios
from collections.abc import Iterator
from typing import TextIO

from zizou.ui.text import clean


@contextlib.contextmanager
def keys_held(stream: TextIO | None = None) -> Iterator[str]:
    """While inside, keys typed on `stream`'s terminal (stdin) are neither echoed nor changed.
    Yields what had been typed before (line-mode newlines are Enter), cleaned of escapes."""
    stream = stream or sys.stdin
    try:
        fd = stream.fileno()
        original = termios.tcgetattr(fd)
    except (AttributeError, OSError, ValueError, termios.error):
        yield ""  # not a terminal: nothing to hold
        return
    held = [list(field) if isinstance(field, list) else field for field in original]
    iflag, lflag, cc = int(original[0]), int(original[3]), list(original[6])
    held[0] = iflag & ~termios.ICRNL  # Enter stays Enter
    held[3] = lflag & ~(termios.ICANON | termios.ECHO)  # no line editing or echo; Ctrl+C stops
    cc[termios.VMIN], cc[termios.VTIME] = 1, 0
    held[6] = cc
    try:
        termios.tcsetattr(fd, termios.TCSANOW, held)
    except termios.error:
        yield ""
        return
    try:
        yield _pending(fd)
    finally:
        with contextlib.suppress(termios.error):
            termios.tcsetattr(fd, termios.TCSADRAIN, original)


def _pending(fd: int) -> str:
    """What is waiting to be read on `fd`, without blocking."""
    data = b""
    with contextlib.suppress(OSError):
        while select.select([fd], [], [], 0)[0] and (chunk := os.read(fd, 4096)):
            data += chunk
    return clean(data.decode("utf-8", "replace").replace("\r", "\n"))


def typed_lines(typed: str) -> tuple[list[str], str]:
    """Typed-ahead text as the messages it sent (its finished, non-empty lines) and what is
    left in the prompt."""
    *lines, rest = typed.split("\n")
    return [line for line in lines if line.strip()], rest


__all__ = ["keys_held", "typed_lines"]
