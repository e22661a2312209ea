"""A command's output kept whole: every line can be read back by its number, across the blocks of
the file, past the cap from the tail kept in memory, and cut views say what they left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.tools.jobs import spool as spool_module
from zizou.tools.jobs.spool import LINE_BYTES, OutputSpool
from zizou.tools.jobs.view import head_and_tail, output_ref


def lines_of(count: int) -> bytes:
    return b"".join(f"{i}\n".encode() for i in range(1, count + 1))


NUMBERS = lines_of(500_000)  # 3.4 MB: four blocks


def fed(spool: OutputSpool, data: bytes, chunk: int = 65_536) -> OutputSpool:
    for start in range(0, len(data), chunk):
        spool.feed(data[start : start + chunk])
    return spool


def numbers(spool: OutputSpool, start: int, end: int) -> list[int]:
    return [int(line.data) for line in spool.read(start, end)]


@pytest.mark.parametrize("chunk", [1, 4096, 70_001], ids=["bytes", "pages", "odd"])
def test_every_line_is_read_back_by_its_number(tmp_path: Path, chunk: int) -> None:
    data = NUMBERS if chunk > 1 else lines_of(3000)
    spool = fed(OutputSpool(tmp_path / "out"), data, chunk)
    total = data.count(b"\n")
    assert spool.lines == total and spool.size == len(data) and spool.whole
    for n in {1, 2, total // 3, total // 2 + 1, total - 1, total}:
        assert numbers(spool, n, n) == [n]
    assert numbers(spool, total - 2, total + 50) == [total - 2, total - 1, total]
    assert [line.number for line in spool.last(3)] == [total - 2, total - 1, total]


def test_a_line_across_a_block_boundary_is_whole(tmp_path: Path) -> None:
    line = b"y" * 100 + b"\n"
    data = b"x" * (spool_module.BLOCK - 50) + b"\n" + line + b"end"
    spool = fed(OutputSpool(tmp_path / "out"), data)
    [second] = spool.read(2, 2)
    assert second.data == b"y" * 100
    [last] = spool.read(3, 3)
    assert (last.number, last.data) == (3, b"end")  # the last line has no newline
    assert spool.lines == 3


def test_a_very_long_line_keeps_its_start_and_its_length(tmp_path: Path) -> None:
    spool = fed(OutputSpool(tmp_path / "out"), b"z" * (3 * LINE_BYTES) + b"\nafter\n")
    first, second = spool.read(1, 2)
    assert (len(first.data), first.length) == (LINE_BYTES, 3 * LINE_BYTES)
    assert (second.number, second.data) == (2, b"after")


def test_past_the_cap_the_end_is_still_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(spool_module, "MAX_KEPT_BYTES", 100_000)
    spool = fed(OutputSpool(tmp_path / "out"), NUMBERS)
    assert not spool.whole and spool.lines == 500_000
    assert (tmp_path / "out").stat().st_size == 100_000
    assert numbers(spool, 1, 3) == [1, 2, 3]
    assert numbers(spool, 400_000, 400_002) == []  # neither in the file nor in the tail
    assert numbers(spool, 499_998, 500_000) == [499_998, 499_999, 500_000]
    shown = head_and_tail(spool, "c7")
    assert shown.cut and shown.text.endswith("\n500000")
    assert shown.note is not None and "read the rest as far as it is kept (the first 64 MiB " in (
        shown.note
    )


def test_without_a_file_the_start_is_kept_in_memory() -> None:
    spool = fed(OutputSpool(None), lines_of(1000))
    assert numbers(spool, 5, 6) == [5, 6]
    counted = fed(OutputSpool(None, keep=False), lines_of(100_000))  # more than the tail
    assert counted.lines == 100_000 and numbers(counted, 5, 6) == []
    assert [line.number for line in counted.last(1)] == [100_000]


def test_a_spool_that_cannot_make_its_file_says_so(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    spool = fed(OutputSpool(tmp_path / "taken"), b"1\n2\n")
    assert spool.problem is not None and "could not keep the output" in spool.problem
    assert numbers(spool, 1, 2) == [1, 2]  # in memory instead
    assert (tmp_path / "taken").read_text() == ""


def test_the_file_is_private(tmp_path: Path) -> None:
    fed(OutputSpool(tmp_path / "out"), b"secret\n")
    assert (tmp_path / "out").stat().st_mode & 0o777 == 0o600


def test_a_short_output_is_shown_whole_without_a_note(tmp_path: Path) -> None:
    shown = head_and_tail(fed(OutputSpool(tmp_path / "out"), b"a\n\x1b[31mb\x1b[0m\nc"), "c1")
    assert (shown.text, shown.cut, shown.note) == ("a\nb\nc", False, None)
    empty = head_and_tail(OutputSpool(tmp_path / "empty"), "c2")
    assert (empty.text, empty.cut) == ("", False)


def test_a_cut_view_says_how_many_lines_of_how_many_and_names_the_rest(tmp_path: Path) -> None:
    shown = head_and_tail(fed(OutputSpool(tmp_path / "out"), lines_of(200_000)), "c4")
    assert shown.cut and shown.note is not None
    assert shown.note.startswith("[2,000 of 200,000 lines shown (head and tail)")
    assert "lines shown (head and tail); read the rest with" in shown.note
    assert output_ref(shown.note) == "c4"
    lines = shown.text.splitlines()
    gap = lines[1000]
    assert gap.startswith("[... lines 1,001-") and gap.endswith(" not shown ...]")
    assert lines[:2] == ["1", "2"] and len(lines) == 2001
