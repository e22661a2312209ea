"""`zizou map` end to end: byte-identical under any hash seed, cold or warm; stats; bad flags."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import scaled

from zizou.repomap import cache
from zizou.repomap.files import list_project_files
from zizou.repomap.tags import tags_fingerprint

from .conftest import write_project


def _zizou_map(
    project: Path, *args: str, seed: str = "0", check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-m", "zizou", "map", "-C", str(project), *args],
        capture_output=True,
        env=env,
        check=check,
        timeout=scaled(120),
    )


@pytest.mark.slow  # a zizou process, or litellm imported
def test_the_map_is_byte_identical_under_any_hash_seed(tmp_path: Path) -> None:
    # Enough files that a cold map parses them in a process pool.
    project = write_project(tmp_path / "project", extra_modules=230)
    outputs: dict[str, bytes] = {}
    for seed in ("0", "1", "4242", "random"):
        shutil.rmtree(project / ".zizou", ignore_errors=True)
        outputs[seed] = _zizou_map(project, "--tokens", "1500", seed=seed).stdout
    (project / ".zizou" / "cache" / "repomap-renders.bin").unlink()  # warm tags, no memo
    outputs["warm"] = _zizou_map(project, "--tokens", "1500", seed="99").stdout
    focused = {
        seed: _zizou_map(project, "--tokens", "800", "--focus", "app/views.py", seed=seed).stdout
        for seed in ("3", "random")
    }
    assert len(set(outputs.values())) == 1, outputs
    assert len(set(focused.values())) == 1
    assert b"app/models.py:" in outputs["0"] and b"gen_pkg/" in outputs["0"]


def test_the_tags_are_on_disk_once_the_process_has_ended(project: Path) -> None:
    """They are written in a thread after the map is printed, which the exit waits for."""
    _zizou_map(project, "--tokens", "300")
    entries, graph = cache.load_tags(project / ".zizou" / "cache", tags_fingerprint())
    assert len(entries) == len(list_project_files(project).sources) and graph is not None


def test_stats_go_to_stderr(project: Path) -> None:
    done = _zizou_map(project, "--stats", "--tokens", "300")
    assert done.stdout.startswith(b"Relevant definitions")
    stats = done.stderr.decode()
    for word in ("files:", "tags:", "definitions", "cache", "parse", "rank", "render", "cl100k"):
        assert word in stats, stats


def test_a_focus_outside_the_project_is_a_usage_error(project: Path) -> None:
    done = _zizou_map(project, "--focus", "../elsewhere.py", check=False)
    assert done.returncode == 2
    assert b"--focus ../elsewhere.py" in done.stderr
    missing = _zizou_map(project, "--focus", "nope.py", check=False)
    assert missing.returncode == 2 and b"no such file" in missing.stderr


def test_zero_tokens_prints_nothing(project: Path) -> None:
    assert _zizou_map(project, "--tokens", "0").stdout == b""
