"""Fixtures for the TUI's Pilot and snapshot tests.

No test here reaches the machine's own keyring: by default keyring's failing backend is
installed (what a headless box has), and `memory_keyring` installs a working fake one.
Textual's Pilot waits up to 30 s, a limit of its own, for the screen to take in each key and
click; that limit grows with the tests' others (`waiting.scaled`), so a busy machine is slow,
not failing.

After each key and each bare `pilot.pause()`, Pilot also waits for the process to go idle: it
sleeps in slices and stops after the first slice in which the process used under a twentieth
of it. Textual's slice is 20 ms, so every key cost at least 40 ms of sleep; the slice here is
5 ms with the same twentieth, which takes about 40% off the Pilot tests. It is only a test
machine's pacing (nothing in the app reads it), and no test's outcome rests on it: what a test
waits for, it waits for by condition (`ui_harness.settle`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
import textual._wait
from keyring.backends import fail
from textual.pilot import Pilot

sys.path.append(str(Path(__file__).resolve().parent))  # after tests/: see tests/conftest.py

from fake_keyring import MemoryKeyring
from key_stub import KeyStub
from ui_harness import MakeApp, build_app
from waiting import scaled

from zizou.ui.app import ZizouApp

textual._wait.SLEEP_GRANULARITY = 0.005
textual._wait.SLEEP_IDLE = textual._wait.SLEEP_GRANULARITY / 20


@pytest.fixture(autouse=True)
def pilot_waits_scaled(monkeypatch: pytest.MonkeyPatch) -> None:
    waits = Pilot._wait_for_screen

    async def wait_for_screen(self: Pilot[Any], timeout: float = 30.0) -> bool:
        return await waits(self, scaled(timeout))

    monkeypatch.setattr(Pilot, "_wait_for_screen", wait_for_screen)


@pytest.fixture(autouse=True)
def no_keyring() -> Iterator[None]:
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(before)


@pytest.fixture
def memory_keyring() -> MemoryKeyring:
    backend = MemoryKeyring()
    keyring.set_keyring(backend)  # the autouse fixture puts the previous one back
    return backend


@pytest.fixture
def key_stub() -> Iterator[KeyStub]:
    stub = KeyStub()
    yield stub
    stub.close()


@pytest.fixture
def make_app(project: Path, zizou_home: Path) -> MakeApp:
    def make(replies: Iterable[dict[str, Any]] = (), **kwargs: Any) -> ZizouApp:
        return build_app(project, replies, **kwargs)

    return make
