"""Every end-to-end test runs real zizou processes (headless, or in tmux): the slow tier, which
`scripts/check.sh --fast` leaves out and the full run keeps."""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.slow)
