"""Fixtures for the TUI's Pilot and snapshot tests."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from ui_harness import MakeApp, build_app

from zizou.ui.app import ZizouApp


@pytest.fixture
def make_app(project: Path, zizou_home: Path) -> MakeApp:
    def make(replies: Iterable[dict[str, Any]] = (), **kwargs: Any) -> ZizouApp:
        return build_app(project, replies, **kwargs)

    return make
