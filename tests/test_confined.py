"""The strict resolver and the fd functions, against hostile layouts built from real files."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from zizou import confined
from zizou.errors import PathError

SECRET = "OUTSIDE-SECRET"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x = 1\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text(SECRET + "\n")
    return project


@pytest.fixture
def outside(root: Path) -> Path:
    return root.parent / "outside"


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _hostile(root: Path, outside: Path) -> None:
    (root / "loop").symlink_to("loop")
    (root / "lnk").symlink_to("../outside")
    (root / "chain1").symlink_to("chain2")
    (root / "chain2").symlink_to("chain3")
    (root / "chain3").symlink_to("../outside/secret")
    (root / "abs_in").symlink_to(root / "src")
    (root / "abs_out").symlink_to(outside)
    (root / "environ").symlink_to("/proc/self/environ")
    (root / "dangling_in").symlink_to("not-yet.txt")
    (root / "dangling_out").symlink_to(outside / "not-yet.txt")
    (root / "ping").symlink_to("pong/x")
    (root / "pong").symlink_to("ping/y")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("loop/../lnk/secret", "symlink loop at loop/"),
        ("loop", "symlink loop at loop"),
        ("ping", "symlink loop at"),
        ("lnk/secret", "lnk points outside the project"),
        ("lnk", "lnk points outside the project"),
        ("src/../lnk/secret", "lnk points outside the project"),
        ("new/../lnk/secret", "lnk points outside the project"),
        ("chain1", "chain3 points outside the project"),
        ("abs_out/secret", "abs_out points outside the project"),
        ("environ", "environ points outside the project"),
        ("dangling_out", "dangling_out points outside the project"),
        ("..", "outside the project root"),
        ("src/../../outside/secret", "outside the project root"),
        ("/etc/passwd", "outside the project root"),
        ("src/a.py/x", "src/a.py is not a directory"),
        ("", "empty"),
        ("~/x", "not expanded"),
        ("a\0b", "control character"),
    ],
)
def test_hostile_paths_are_refused(root: Path, outside: Path, raw: str, message: str) -> None:
    _hostile(root, outside)
    with pytest.raises(PathError, match=re.escape(message)):
        confined.resolve(root, raw)


@pytest.mark.parametrize(
    ("raw", "real"),
    [
        ("src/a.py", "src/a.py"),
        ("abs_in/a.py", "src/a.py"),
        (".", ""),
        ("src/./a.py", "src/a.py"),
        ("src/../src/a.py", "src/a.py"),
        ("dangling_in", "not-yet.txt"),
        ("new/dir/file.txt", "new/dir/file.txt"),
        ("new/../src/a.py", "src/a.py"),
    ],
)
def test_paths_inside_resolve_to_their_real_path(
    root: Path, outside: Path, raw: str, real: str
) -> None:
    _hostile(root, outside)
    assert confined.resolve(root, raw) == root.resolve().joinpath(*real.split("/") if real else [])


def test_an_absolute_path_inside_the_root_is_allowed(root: Path) -> None:
    assert confined.resolve(root, str(root / "src" / "a.py")) == root / "src" / "a.py"


def test_a_directory_swapped_for_a_symlink_after_resolving_is_not_read(
    root: Path, outside: Path
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "secret").write_text("inside\n")
    path = confined.resolve(root, "sub/secret")
    (root / "sub" / "secret").unlink()
    (root / "sub").rmdir()
    (root / "sub").symlink_to(outside)
    with pytest.raises(PathError, match="changed while zizou was using it"):
        confined.read_bytes(root, path, 1000)
    with pytest.raises(PathError, match="symbolic link"):
        confined.stat(root, path)


def test_a_file_swapped_for_a_symlink_is_neither_read_nor_written_through(
    root: Path, outside: Path
) -> None:
    path = confined.resolve(root, "src/a.py")
    (root / "src" / "a.py").unlink()
    (root / "src" / "a.py").symlink_to(outside / "secret")
    with pytest.raises(PathError, match="symbolic link"):
        confined.read_bytes(root, path, 1000)
    with pytest.raises(PathError, match="symbolic link"):
        confined.atomic_write(root, path, b"pwned\n")
    assert (outside / "secret").read_text() == SECRET + "\n"


def test_a_write_into_a_swapped_directory_goes_nowhere(root: Path, outside: Path) -> None:
    path = confined.resolve(root, "src/new.txt")
    (root / "src" / "a.py").unlink()
    (root / "src").rmdir()
    (root / "src").symlink_to(outside)
    before = _snapshot(outside)
    with pytest.raises(PathError, match="changed while zizou was using it"):
        confined.atomic_write(root, path, b"pwned\n")
    with pytest.raises(PathError):
        confined.open_file(root, path, os.O_WRONLY | os.O_CREAT, parents=True)
    assert _snapshot(outside) == before


def test_a_broken_readlink_is_a_path_error(root: Path) -> None:
    # What a race looks like: lstat saw a link, and by readlink it is a plain file (EINVAL).
    with pytest.raises(PathError, match="could not be read as a symbolic link"):
        confined.read_link(root / "src" / "a.py", "src/a.py")


def test_a_fifo_is_refused_without_hanging(root: Path) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(PathError, match="not a regular file"):
        confined.read_bytes(root, confined.resolve(root, "pipe"), 1000)


def test_reading_is_capped(root: Path) -> None:
    (root / "big").write_bytes(b"x" * 100)
    with pytest.raises(PathError, match="larger than 10 bytes"):
        confined.read_bytes(root, "big", 10)
    assert confined.read_head(root, "big", 10) == b"x" * 10


def test_atomic_write_keeps_the_mode_and_makes_parents(root: Path) -> None:
    (root / "run.sh").write_text("old\n")
    (root / "run.sh").chmod(0o750)
    confined.atomic_write(root, "run.sh", b"new\n")
    assert (root / "run.sh").read_text() == "new\n"
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o750
    confined.atomic_write(root, root / "a" / "b" / "c.txt", b"c\n", new_mode=0o600)
    assert stat.S_IMODE((root / "a" / "b" / "c.txt").stat().st_mode) == 0o600
    assert sorted(os.listdir(root / "a" / "b")) == ["c.txt"]


def test_a_symlinked_directory_is_not_made_or_entered(root: Path, outside: Path) -> None:
    (root / "zdir").symlink_to(outside)
    with pytest.raises(PathError, match="zdir is a symbolic link"):
        confined.make_dirs(root, "zdir/cache")
    assert not (outside / "cache").exists()


def test_scandir_lists_by_fd_and_shows_links(root: Path, outside: Path) -> None:
    (root / "lnk").symlink_to("../outside")
    listed = {entry.name: entry for entry in confined.scandir(root, ".")}
    assert listed["src"].is_dir and listed["lnk"].is_link and listed["lnk"].link == "../outside"
    with pytest.raises(PathError):
        confined.scandir(root, "lnk")


def test_stat_of_a_missing_path_is_none(root: Path) -> None:
    assert confined.stat(root, "nope/deeper") is None
    assert confined.stat(root, "src/nope") is None


def test_fd_functions_refuse_paths_outside_the_root(root: Path, outside: Path) -> None:
    with pytest.raises(PathError, match="outside the project root"):
        confined.read_bytes(root, outside / "secret", 1000)
    with pytest.raises(PathError):
        confined.read_bytes(root, "src/../../outside/secret", 1000)


def test_a_path_deeper_than_the_limit_is_refused_and_nothing_is_made(root: Path) -> None:
    deep = "d/" * (confined.MAX_DEPTH + 1) + "f.txt"
    with pytest.raises(
        PathError, match=rf"levels deep; zizou uses paths at most {confined.MAX_DEPTH}"
    ):
        confined.atomic_write(root, deep, b"x")
    assert not (root / "d").exists()
    ok = "d/" * (confined.MAX_DEPTH - 1) + "f.txt"
    confined.atomic_write(root, ok, b"x")
    assert (root / ok).read_bytes() == b"x"


def test_a_name_longer_than_the_system_allows_is_refused(root: Path) -> None:
    name = "n" * (os.pathconf(root, "PC_NAME_MAX") + 1)
    with pytest.raises(PathError, match="the system takes names of at most"):
        confined.atomic_write(root, f"src/{name}", b"x")
    assert sorted(p.name for p in (root / "src").iterdir()) == ["a.py"]


def test_a_path_longer_than_path_max_is_refused_however_it_is_spelled(root: Path) -> None:
    path_max = os.pathconf(root, "PC_PATH_MAX")
    text = "a" * 200 + "/"
    long_text = text * (path_max // len(text) + 1) + "f"
    with pytest.raises(PathError, match="the system takes paths of at most"):
        confined.resolve(root, long_text)
    # Short enough as text, but the root's own length takes it past the limit.
    room = path_max - len(os.fsencode(str(confined.real_root(root)))) - 1
    fits = "/".join(["b" * 200] * (room // 201 + 1))[: path_max - 2]
    with pytest.raises(PathError, match="long as a full path"):
        confined.resolve(root, fits)
    assert not (root / ("a" * 200)).exists() and not (root / ("b" * 200)).exists()
