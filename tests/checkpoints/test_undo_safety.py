"""Undo and its blobs when something is off: a planted or damaged blob, a blob gone between the
check and the touch, a listing that cannot be read at pruning, a write that fails halfway, a
file too large to keep, the user's edits after an undo, and an undo cut short then finished."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from checkpoint_session import Session

from zizou.checkpoints import BlobStore, UndoError, UndoRefused
from zizou.checkpoints import files as files_module
from zizou.checkpoints import undo as undo_module
from zizou.checkpoints.blobs import BLOBS_DIR, digest
from zizou.errors import PathError


def blob_path(root: Path, sha: str) -> Path:
    return root / BLOBS_DIR / sha[:2] / sha[2:]


def failing_put_back(monkeypatch: pytest.MonkeyPatch, path: str, error: BaseException) -> None:
    real = undo_module.put_back

    def put_back(
        root: Path, rel: str, data: bytes, mode: int | None, *, durable: bool = True
    ) -> None:
        if rel == path:
            raise error
        real(root, rel, data, mode, durable=durable)

    monkeypatch.setattr(undo_module, "put_back", put_back)


# Blobs.


def test_put_rewrites_a_planted_blob(tmp_path: Path) -> None:
    data = b"the real bytes\n"
    planted = blob_path(tmp_path, digest(data))
    planted.parent.mkdir(parents=True)
    planted.write_bytes(b"garbage")
    store = BlobStore(tmp_path, "s1")
    assert store.put(data) == digest(data)
    assert planted.read_bytes() == data and store.get(digest(data)) == data
    assert planted.stat().st_mode & 0o777 == 0o600


def test_put_writes_a_blob_that_went_before_its_touch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = BlobStore(tmp_path, "s1")
    sha = store.put(b"kept\n")
    real_utime = os.utime

    def vanishing(fd: int, *args: object) -> None:
        blob_path(tmp_path, sha).unlink()  # pruned by another zizou right now
        raise FileNotFoundError("gone")

    monkeypatch.setattr(os, "utime", vanishing)
    BlobStore(tmp_path, "s2").put(b"kept\n")
    monkeypatch.setattr(os, "utime", real_utime)
    assert store.get(sha) == b"kept\n"


def test_the_refs_append_is_synced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    BlobStore(tmp_path, "s1").put(b"stored\n")
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(fd) or real_fsync(fd))
    BlobStore(tmp_path, "s2").put(b"stored\n")  # stored already: only its list is written
    assert synced


def test_prune_skips_when_the_sessions_cannot_be_listed(tmp_path: Path) -> None:
    store = BlobStore(tmp_path, "alive")
    sha = store.put(b"needed by a session\n")
    elsewhere = tmp_path.parent / f"{tmp_path.name}-sessions"
    elsewhere.mkdir()
    (elsewhere / "alive.jsonl").write_text("{}\n")
    (tmp_path / ".zizou" / "sessions").symlink_to(elsewhere)  # refused, never followed
    then = time.time() - 2 * 3600
    os.utime(blob_path(tmp_path, sha), (then, then))
    pruned = BlobStore(tmp_path, "other").prune(10**9, 30 * 86_400.0)
    assert pruned.blobs == 0 and pruned.refs == 0
    assert store.has(sha) and (tmp_path / ".zizou/checkpoints/refs/alive").exists()


# Undo.


def test_a_damaged_blob_refuses_the_undo_before_any_file_changes(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"A0\n")
    (root / "b.txt").write_bytes(b"B0\n")
    session.turn("t", {"a.txt": b"A1\n", "b.txt": b"B1\n"})
    blob_path(root, digest(b"B0\n")).write_bytes(b"damaged")
    with pytest.raises(UndoRefused, match="damaged"):
        session.checkpoints.undo()
    assert (root / "a.txt").read_bytes() == b"A1\n"
    assert len(session.checkpoints.turns()) == 1


def test_a_failed_write_stops_the_undo_and_keeps_the_turn(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"A0\n")
    (root / "b.txt").write_bytes(b"B0\n")
    session.turn("t", {"a.txt": b"A1\n", "b.txt": b"B1\n"})
    failing_put_back(monkeypatch, "b.txt", PathError("b.txt could not be written: disk full"))
    with pytest.raises(UndoError, match=r"stopped at b\.txt.*undo again"):
        session.checkpoints.undo()
    assert len(session.checkpoints.turns()) == 1  # the conversation was not cut
    assert (root / "b.txt").read_bytes() == b"B1\n"
    monkeypatch.undo()
    session.checkpoints.undo()
    assert (root / "a.txt").read_bytes() == b"A0\n" and (root / "b.txt").read_bytes() == b"B0\n"
    session.checkpoints.redo()
    assert (root / "a.txt").read_bytes() == b"A1\n" and (root / "b.txt").read_bytes() == b"B1\n"


def test_force_never_overwrites_a_file_whose_bytes_cannot_be_kept(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = session.root
    (root / "data.csv").write_bytes(b"small\n")
    session.turn("t", {"data.csv": b"small, edited\n"})
    monkeypatch.setattr(files_module, "MAX_SAVED_BYTES", 100)
    big = os.urandom(200)  # the user's work, too large to keep
    (root / "data.csv").write_bytes(big)
    with pytest.raises(UndoRefused, match="cannot be kept"):
        session.checkpoints.undo()
    result = session.checkpoints.undo(force=True)
    assert (root / "data.csv").read_bytes() == big
    assert [o.path for o in result.failed] == ["data.csv"]


def test_redo_with_force_keeps_the_edits_made_after_the_undo(session: Session) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"A0\n")
    session.turn("t", {"a.txt": b"A1\n"})
    session.checkpoints.undo()
    mine = b"A0 plus an hour of my own edits\n"
    (root / "a.txt").write_bytes(mine)
    session.checkpoints.redo(force=True)
    assert (root / "a.txt").read_bytes() == b"A1\n"
    session.checkpoints.undo()  # no conflict: the file is as the redo left it
    assert (root / "a.txt").read_bytes() == mine
    reopened = session.reopened()  # and the session file says so too
    reopened.redo()
    reopened.undo()
    assert (root / "a.txt").read_bytes() == mine


def test_an_undo_cut_short_and_finished_later_can_still_be_redone(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = session.root
    (root / "a.txt").write_bytes(b"A0\n")
    (root / "b.txt").write_bytes(b"B0\n")
    session.turn("t", {"a.txt": b"A1 model work\n", "b.txt": b"B1 model work\n"})
    failing_put_back(monkeypatch, "b.txt", SystemExit("power cut"))
    with pytest.raises(SystemExit):
        session.checkpoints.undo()
    monkeypatch.undo()
    assert (root / "a.txt").read_bytes() == b"A0\n"
    checkpoints = session.reopened()
    checkpoints.undo()
    assert (root / "b.txt").read_bytes() == b"B0\n"
    checkpoints.redo()
    assert (root / "a.txt").read_bytes() == b"A1 model work\n"
    assert (root / "b.txt").read_bytes() == b"B1 model work\n"
