"""SourceReader reads what read_source reads, opening each directory once, and no more: nothing
through a link out of the project, no FIFO, no fd left open."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zizou.errors import PathError
from zizou.repomap.files import KEPT_DIRECTORIES, SourceReader, read_source


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for rel in ("a/b/one.py", "a/b/two.py", "a/three.py", "top.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"# {rel}\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET = 1\n")
    return root


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_it_reads_what_read_source_reads(tree: Path) -> None:
    with SourceReader(tree) as reader:
        for rel in ("a/b/one.py", "a/b/two.py", "a/three.py", "top.py"):
            info, data = reader.read(rel)
            expected_info, expected = read_source(tree, rel)
            assert data == expected == f"# {rel}\n".encode()
            assert (info.st_ino, info.st_size) == (expected_info.st_ino, expected_info.st_size)


def test_a_directory_swapped_for_a_link_out_is_not_read_through(tree: Path) -> None:
    outside = tree.parent / "outside"
    with SourceReader(tree) as reader:
        reader.read("top.py")
        (tree / "linked").symlink_to(outside, target_is_directory=True)
        with pytest.raises(PathError):
            reader.read("linked/secret.py")
        (tree / "leak.py").symlink_to(outside / "secret.py")
        with pytest.raises(PathError):
            reader.read("leak.py")


def test_a_link_inside_the_project_reads_its_target(tree: Path) -> None:
    (tree / "alias.py").symlink_to("a/three.py")
    with SourceReader(tree) as reader:
        assert reader.read("alias.py")[1] == b"# a/three.py\n"


def test_a_fifo_is_refused_without_hanging(tree: Path) -> None:
    os.mkfifo(tree / "a" / "pipe.py")
    with SourceReader(tree) as reader, pytest.raises(PathError):
        reader.read("a/pipe.py")


def test_many_directories_keep_few_fds_open_and_none_after(tree: Path) -> None:
    count = KEPT_DIRECTORIES + 40
    for i in range(count):
        (tree / f"d{i}").mkdir()
        (tree / f"d{i}" / "m.py").write_text(f"x = {i}\n")
    before = _open_fds()
    with SourceReader(tree) as reader:
        for i in range(count):
            assert reader.read(f"d{i}/m.py")[1] == f"x = {i}\n".encode()
            assert _open_fds() <= before + KEPT_DIRECTORIES + 1
    assert _open_fds() == before
