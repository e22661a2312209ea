"""Fixtures for the TUI's Pilot and snapshot tests.

No test here reaches the machine's own keyring: by default keyring's failing backend is
installed (what a headless box has), and `memory_keyring` installs a working fake one.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends import fail

sys.path.append(str(Path(__file__).resolve().parent))  # after tests/: see tests/conftest.py

from fake_keyring import MemoryKeyring
from key_stub import KeyStub
from ui_harness import MakeApp, build_app

from zizou.ui.app import ZizouApp


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
