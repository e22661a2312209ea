"""The tests' time limits all come from one setting: ZIZOU_TEST_TIMEOUT_SCALE makes every one
longer on a slow machine, never shorter; unset, the machine's load sets it."""

from __future__ import annotations

import os

import pytest
from waiting import SCALE_VARIABLE, scaled, wait_until


def test_the_scale_lengthens_every_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCALE_VARIABLE, "1")
    assert scaled(30) == 30
    monkeypatch.setenv(SCALE_VARIABLE, "2.5")
    assert scaled(30) == 75
    monkeypatch.setenv(SCALE_VARIABLE, "0.1")
    assert scaled(30) == 30


def test_a_wait_that_runs_out_says_the_scaled_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCALE_VARIABLE, "2")
    with pytest.raises(AssertionError, match=r"waited 0\.02 s for nothing"):
        wait_until(lambda: False, "nothing", limit_s=0.01)


@pytest.mark.parametrize("chosen", [None, "auto"])
def test_unset_the_machines_load_sets_the_scale(
    monkeypatch: pytest.MonkeyPatch, chosen: str | None
) -> None:
    if chosen is None:
        monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(SCALE_VARIABLE, chosen)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (4.0, 1.0, 1.0))  # two busy processes a CPU
    assert scaled(30) == 90
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # a quiet machine
    assert scaled(30) == 30


def test_a_scale_that_is_not_a_number_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCALE_VARIABLE, "slow")
    with pytest.raises(ValueError, match="must be a number, such as 2, or auto"):
        scaled(30)
