"""The checkpoint blobs: stored once by hash, private, read back only when whole, and pruned at
start-up (sessions that are gone, age, size), never through a symlinked `.zizou`."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from zizou.checkpoints import BlobStore
from zizou.checkpoints.blobs import BLOBS_DIR, REFS_DIR, digest
from zizou.errors import PathError

DAY = 86_400.0


def blob_path(root: Path, sha: str) -> Path:
    return root / BLOBS_DIR / sha[:2] / sha[2:]


def age(path: Path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def session_file(root: Path, session_id: str) -> None:
    (root / ".zizou" / "sessions").mkdir(parents=True, exist_ok=True)
    (root / ".zizou" / "sessions" / f"{session_id}.jsonl").write_text("{}\n")


def test_a_blob_is_kept_once_privately_and_listed_for_its_session(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, "s1")
    data = b"\x00\xffbinary\r\n"
    sha = store.put(data)
    assert sha == digest(data) and store.put(data) == sha
    assert store.get(sha) == data and store.has(sha)
    assert blob_path(tmp_path, sha).stat().st_mode & 0o777 == 0o600
    assert (tmp_path / REFS_DIR / "s1").read_text() == f"{sha}\n"
    assert (tmp_path / ".zizou" / ".gitignore").read_text() == "*\n"


def test_a_damaged_or_missing_blob_reads_as_gone(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, "s1")
    sha = store.put(b"original")
    blob_path(tmp_path, sha).write_bytes(b"tampered")
    assert store.get(sha) is None
    assert store.get("0" * 64) is None and not store.has("0" * 64)


def test_storing_again_touches_the_blob(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, "s1")
    sha = store.put(b"kept")
    age(blob_path(tmp_path, sha), 40 * DAY)
    store.put(b"kept")
    assert time.time() - blob_path(tmp_path, sha).stat().st_mtime < 60


def test_a_symlinked_project_dir_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    root = tmp_path / "project"
    root.mkdir()
    (root / ".zizou").symlink_to(elsewhere)
    with pytest.raises(PathError):
        BlobStore(root, "s1").put(b"secret")
    assert list(elsewhere.iterdir()) == []


def test_prune_removes_what_gone_sessions_listed_and_what_is_too_old(tmp_path: Path) -> None:
    session_file(tmp_path, "alive")
    alive, gone = BlobStore(tmp_path, "alive"), BlobStore(tmp_path, "gone")
    kept = alive.put(b"still needed")
    orphan = gone.put(b"nobody needs this")
    fresh_orphan = gone.put(b"stored a moment ago")
    old = alive.put(b"needed, but too old")
    age(blob_path(tmp_path, orphan), 2 * 3600)
    age(blob_path(tmp_path, old), 31 * DAY)
    pruned = BlobStore(tmp_path, "other").prune(10**9, 30 * DAY)
    assert alive.has(kept) and gone.has(fresh_orphan)  # young: another zizou may be storing it
    assert not gone.has(orphan) and not alive.has(old)
    assert pruned.blobs == 2 and pruned.refs == 1
    assert not (tmp_path / REFS_DIR / "gone").exists()


def test_prune_keeps_the_store_under_its_size_oldest_first(tmp_path: Path) -> None:
    session_file(tmp_path, "s1")
    store = BlobStore(tmp_path, "s1")
    shas = [store.put(bytes([n]) * 400) for n in range(5)]
    for n, sha in enumerate(shas):
        age(blob_path(tmp_path, sha), (5 - n) * 60)  # the first is the oldest
    pruned = store.prune(1000, 30 * DAY)
    assert [store.has(sha) for sha in shas] == [False, False, False, True, True]
    assert pruned.bytes == 1200


def test_prune_without_a_store_makes_nothing(tmp_path: Path) -> None:
    assert BlobStore(tmp_path, "s1").prune(1, 1).blobs == 0
    assert not (tmp_path / ".zizou").exists()
