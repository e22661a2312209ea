"""A render pauses the cyclic collector and hands what it built to the oldest generation; it leaves
alone objects the program froze itself, and the collector as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from zizou import collector as zizou_collector
from zizou.repomap import MapRequest, RepoMap
from zizou.repomap.tokens import EstimateCounter


@pytest.fixture
def collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    zizou_collector.unfreeze()
    if enabled:
        gc.enable()
    else:
        gc.disable()


def _render(project: Path) -> str:
    mapper = RepoMap(project, workers=1, counter=EstimateCounter())
    return mapper.render(MapRequest(max_tokens=600)).text


def test_a_render_moves_what_it_built_to_the_oldest_generation(
    project: Path, collector: None
) -> None:
    gc.enable()
    gc.collect()
    assert "class User" in _render(project)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    # Not left to the young generations, which the collector walks again and again.
    assert len(gc.get_objects(generation=0)) + len(gc.get_objects(generation=1)) < 500


def test_objects_the_program_froze_stay_frozen(project: Path, collector: None) -> None:
    gc.enable()
    zizou_collector.freeze()
    frozen = gc.get_freeze_count()
    _render(project)
    assert gc.get_freeze_count() == frozen and gc.isenabled()


def test_a_render_never_counts_the_frozen_objects(
    project: Path, collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting them walks every one (Python 3.11): in the app, which freezes what start-up
    loaded, that stalled the screen at every agent step."""

    def counted() -> int:
        raise AssertionError("the frozen generation was walked")

    gc.enable()
    zizou_collector.freeze()
    monkeypatch.setattr(gc, "get_freeze_count", counted)
    assert "class User" in _render(project)


def test_a_disabled_collector_stays_disabled(project: Path, collector: None) -> None:
    gc.disable()
    _render(project)
    assert not gc.isenabled()
