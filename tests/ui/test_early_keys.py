"""Keys typed while the app starts: held unaltered on a real pseudo-terminal, and what was typed
before the hold handed over as lines to send and text for the prompt."""

from __future__ import annotations

import io
import os
import pty
import termios
import time
from collections.abc import Iterator

import pytest

from zizou.ui.early_keys import keys_held, typed_lines


@pytest.fixture
def terminal() -> Iterator[tuple[int, io.TextIOWrapper]]:
    master, slave = pty.openpty()
    stream = open(slave, encoding="utf-8", closefd=True)  # noqa: SIM115 - closed below
    try:
        yield master, stream
    finally:
        stream.close()
        os.close(master)


def wait_readable(fd: int) -> None:
    import select

    select.select([fd], [], [], 2)
    time.sleep(0.05)


def test_line_mode_input_is_handed_over_and_later_keys_stay_as_typed(
    terminal: tuple[int, io.TextIOWrapper],
) -> None:
    master, stream = terminal
    before = termios.tcgetattr(stream.fileno())
    os.write(master, b"first message\rsecond \x1b[Apart")  # Enter, then an arrow key, then text
    wait_readable(stream.fileno())
    with keys_held(stream) as typed:
        assert typed == "first message\nsecond part"
        assert typed_lines(typed) == (["first message"], "second part")
        held = termios.tcgetattr(stream.fileno())
        assert not held[3] & (termios.ICANON | termios.ECHO)
        assert held[3] & termios.ISIG  # Ctrl+C still stops a start that hangs
        os.write(master, b"x\r")
        wait_readable(stream.fileno())
        assert os.read(stream.fileno(), 100) == b"x\r"  # Enter arrives as Enter
    assert termios.tcgetattr(stream.fileno()) == before


def test_nothing_typed_and_no_terminal_hand_over_nothing(
    terminal: tuple[int, io.TextIOWrapper],
) -> None:
    _, stream = terminal
    with keys_held(stream) as typed:
        assert typed == ""
    with keys_held(io.StringIO("not a terminal")) as typed:
        assert typed == ""


def test_typed_lines_keep_what_is_unfinished_and_skip_blank_lines() -> None:
    assert typed_lines("") == ([], "")
    assert typed_lines("a\n\n  \nb\nc") == (["a", "b"], "c")
    assert typed_lines("done\n") == (["done"], "")
