"""Fixtures for the checkpoint tests: a project and a session whose turns change its files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.append(str(Path(__file__).resolve().parent))  # after tests/: see tests/conftest.py

from checkpoint_session import Session


@pytest.fixture
def session(tmp_path: Path) -> Session:
    root = tmp_path / "project"
    root.mkdir()
    return Session(root)
