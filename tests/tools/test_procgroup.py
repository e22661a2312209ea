"""Telling a live process group from one of zombies, while processes come and go."""

from __future__ import annotations

from pathlib import Path

from zizou.process_groups.groups import _live_member_in_proc


def _stat(proc: Path, pid: str, state: str, group: int) -> None:
    (proc / pid).mkdir()
    (proc / pid / "stat").write_text(f"{pid} (a (b) c) {state} 1 {group} 0 0\n")


def test_a_member_that_is_not_a_zombie_is_alive_and_a_vanished_entry_is_skipped(
    tmp_path: Path,
) -> None:
    proc = tmp_path / "proc"
    proc.mkdir()
    _stat(proc, "self", "R", 1)
    (proc / "7").mkdir()  # an entry whose process ended while the table was read
    (proc / "7" / "stat").mkdir()  # (reading it fails, as ESRCH does for a real one)
    _stat(proc, "8", "Z", 40)
    assert not _live_member_in_proc(40, proc)  # a zombie only
    _stat(proc, "9", "S", 40)
    assert _live_member_in_proc(40, proc)
    assert not _live_member_in_proc(41, proc)


def test_without_a_proc_table_a_signalled_group_counts_as_alive(tmp_path: Path) -> None:
    assert _live_member_in_proc(40, tmp_path / "nothing")
