"""The collector runs less often in every command, and not at all while litellm is imported."""

from __future__ import annotations

import gc
import json
import subprocess
import sys

from zizou.collector import GC_THRESHOLDS, paused_collector


def collections() -> list[int]:
    return [generation["collections"] for generation in gc.get_stats()]


def test_a_paused_block_runs_no_collection_and_its_objects_go_to_the_oldest_generation() -> None:
    assert gc.isenabled()
    before = collections()
    with paused_collector():
        made = [[index] for index in range(200_000)]  # ten times over the youngest threshold
        assert not gc.isenabled()
    assert collections() == before
    assert gc.isenabled()
    assert gc.get_count()[0] < 1_000  # not left for the young collection to walk
    assert made[-1] == [199_999]


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        with paused_collector():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


SCRIPT = """
import gc, json, sys
from zizou.start import begin
begin()
threshold = gc.get_threshold()
from zizou.providers.litellm_model import preload
before = [g["collections"] for g in gc.get_stats()]
preload()
after = [g["collections"] for g in gc.get_stats()]
print(json.dumps({"threshold": threshold, "during": [a - b for a, b in zip(after, before)],
                  "loaded": "litellm" in sys.modules, "enabled": gc.isenabled()}))
"""


def test_litellm_is_imported_with_no_collection_after_the_start_every_command_makes() -> None:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True
    ).stdout
    seen = json.loads(out.splitlines()[-1])
    assert seen["threshold"] == list(GC_THRESHOLDS)
    assert seen["loaded"] and seen["enabled"]
    assert seen["during"] == [0, 0, 0]
