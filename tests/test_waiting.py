"""The tests' time limits all come from one setting: ZIZOU_TEST_TIMEOUT_SCALE makes every one
longer on a slow machine, never shorter."""

from __future__ import annotations

import pytest
from waiting import SCALE_VARIABLE, scaled, wait_until


def test_the_scale_lengthens_every_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    assert scaled(30) == 30
    monkeypatch.setenv(SCALE_VARIABLE, "2.5")
    assert scaled(30) == 75
    monkeypatch.setenv(SCALE_VARIABLE, "0.1")
    assert scaled(30) == 30


def test_a_wait_that_runs_out_says_the_scaled_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SCALE_VARIABLE, "2")
    with pytest.raises(AssertionError, match=r"waited 0\.02 s for nothing"):
        wait_until(lambda: False, "nothing", limit_s=0.01)
