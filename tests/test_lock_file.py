"""The lock file names packages and hashes only: index locations of the machine that wrote it
would make every user's pip warn about paths that do not exist there."""

from __future__ import annotations

from pathlib import Path

LOCK = Path(__file__).resolve().parents[1] / "requirements.lock"


def test_the_lock_carries_no_index_locations() -> None:
    options = [line for line in LOCK.read_text().splitlines() if line.startswith("--")]
    assert options == []


def test_every_locked_package_is_pinned_with_a_hash() -> None:
    text = LOCK.read_text()
    pins = [line for line in text.splitlines() if "==" in line and not line.startswith(" ")]
    assert pins, "no package is pinned"
    assert text.count("--hash=sha256:") >= len(pins)
