"""The shadow repository that snapshots the project around commands: the bytes kept are the
bytes on disk whatever the project's attributes or the user's git config say, nothing in a
config runs code, ignored entries are watched by their stat data, and it is pruned."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from zizou.checkpoints.shadow import CONFIG, SHADOW_DIR, ShadowRepo
from zizou.checkpoints.snapshot_diff import Snapshot, ignored_changes

CRLF = b"one\r\ntwo\r\n"


def blob_bytes(shadow: ShadowRepo, snapshot: Snapshot, other: Snapshot) -> dict[str, bytes]:
    """What each path that differs between two snapshots holds in `other`."""
    changed = shadow.changes(snapshot.tree, other.tree)
    oids = [item.after.oid for item in changed if item.after is not None]
    blobs = dict(shadow.blobs(oids))
    found: dict[str, bytes] = {}
    for item in changed:
        if item.after is not None:
            blob = blobs[item.after.oid]
            assert blob is not None and blob.data is not None
            found[item.path] = blob.data
    return found


def test_the_bytes_kept_are_the_bytes_on_disk_and_no_config_runs_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    pwned = tmp_path / "pwned"
    (home / ".gitconfig").write_text(
        f'[core]\n\tautocrlf = true\n[filter "evil"]\n\tclean = touch {pwned}\n'
    )
    monkeypatch.setenv("HOME", str(home))
    root = tmp_path / "project"
    root.mkdir()
    (root / ".gitattributes").write_text("* text=auto eol=lf filter=evil\n")
    shadow = ShadowRepo(root)
    empty = shadow.snapshot()
    (root / "crlf.txt").write_bytes(CRLF)
    (root / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    planted = root / SHADOW_DIR / "config"
    planted.write_text(f"[core]\n\tfsmonitor = touch {pwned}\n")  # a command wrote it

    fresh = ShadowRepo(root)
    kept = blob_bytes(fresh, empty, fresh.snapshot())
    assert kept["crlf.txt"] == CRLF and kept["latin.txt"] == "caf\xe9\n".encode("latin-1")
    assert planted.read_bytes() == CONFIG and not pwned.exists()


def test_an_unchanged_tree_snapshots_the_same(tmp_path: Path) -> None:
    for n in range(50):
        (tmp_path / f"d{n % 5}").mkdir(exist_ok=True)
        (tmp_path / f"d{n % 5}" / f"f{n}.txt").write_text(f"{n}\n")
    shadow = ShadowRepo(tmp_path)
    first = shadow.snapshot()
    assert shadow.snapshot().tree == first.tree
    (tmp_path / "d1" / "f1.txt").write_text("changed\n")
    changed = shadow.changes(first.tree, shadow.snapshot().tree)
    assert [(c.path, c.before is not None, c.after is not None) for c in changed] == [
        ("d1/f1.txt", True, True)
    ]


def test_ignored_entries_are_watched_and_zizous_own_files_are_not(tmp_path: Path) -> None:
    root = tmp_path
    (root / ".gitignore").write_text("*.log\ncache/\n")
    (root / "keep.log").write_text("1\n")
    (root / "gone.log").write_text("1\n")
    (root / "cache").mkdir()
    (root / "cache" / "a.bin").write_text("a\n")
    (root / "node_modules" / "pkg").mkdir(parents=True)  # a directory every walk skips
    shadow = ShadowRepo(root)
    before = shadow.snapshot()
    assert set(before.ignored) == {"keep.log", "gone.log", "cache/", "node_modules/"}

    (root / "gone.log").unlink()
    (root / "keep.log").write_text("longer now\n")
    (root / "new.log").write_text("made\n")
    (root / "cache" / "b.bin").write_text("b\n")  # the directory's entries changed
    (root / "zizou-debug.log").write_text("zizou's own\n")
    (root / "zizou-debug.4242.log").write_text("a second zizou's own\n")
    after = shadow.snapshot()
    assert ignored_changes(root, before, after) == [
        ("cache/", "changed"),
        ("gone.log", "deleted"),
        ("keep.log", "changed"),
        ("new.log", "created"),
    ]


def test_a_repository_unused_too_long_goes_and_one_in_use_is_pruned_once_a_day(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    shadow = ShadowRepo(tmp_path)
    shadow.snapshot()
    shadow.prune(max_age_s=3600)
    stamp = tmp_path / SHADOW_DIR / "pruned"
    assert stamp.is_file()
    yesterday = time.time() - 2 * 86_400
    os.utime(stamp, (yesterday, yesterday))
    shadow.prune(max_age_s=30 * 86_400)
    assert stamp.stat().st_mtime > yesterday  # pruned again, a day later

    shadow.prune(max_age_s=3600, now=time.time() + 7200)
    assert not (tmp_path / SHADOW_DIR).exists()
    assert shadow.snapshot().tree  # made again on next use


def test_a_damaged_index_is_made_again_from_the_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    shadow = ShadowRepo(tmp_path)
    first = shadow.snapshot()
    (tmp_path / SHADOW_DIR / "index").write_bytes(b"DIRC garbage")
    assert ShadowRepo(tmp_path).snapshot().tree == first.tree


def test_a_second_processs_debug_log_is_not_in_a_snapshot(tmp_path: Path) -> None:
    shadow = ShadowRepo(tmp_path)
    (tmp_path / "a.txt").write_text("a\n")
    before = shadow.snapshot()
    (tmp_path / "zizou-debug.4242.log").write_text("a second zizou's own\n")
    (tmp_path / "b.txt").write_text("b\n")
    after = shadow.snapshot()
    assert "zizou-debug.4242.log" not in after.ignored
    assert set(blob_bytes(shadow, before, after)) == {"b.txt"}
