from __future__ import annotations

from pathlib import Path

import pytest

from zizou.confined import relative
from zizou.confined import resolve as resolve_in_root
from zizou.errors import PathError


def test_relative_path_inside_resolves(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    path = resolve_in_root(root, "src/a.py")
    assert path == (root / "src" / "a.py").resolve()
    assert relative(root, path) == "src/a.py"


def test_missing_file_inside_is_allowed(root: Path) -> None:
    assert relative(root, resolve_in_root(root, "new/dir/file.txt")) == "new/dir/file.txt"


def test_root_itself_is_dot(root: Path) -> None:
    assert relative(root, resolve_in_root(root, ".")) == "."


def test_absolute_path_inside_is_allowed(root: Path) -> None:
    (root / "a.txt").write_text("hi\n")
    assert relative(root, resolve_in_root(root, str(root / "a.txt"))) == "a.txt"


def test_dotdot_inside_root_is_allowed(root: Path) -> None:
    assert relative(root, resolve_in_root(root, "src/../b.txt")) == "b.txt"


@pytest.mark.parametrize("raw", ["..", "../outside/secret.txt", "a/../../outside", "../../etc"])
def test_dotdot_escaping_is_refused(root: Path, raw: str) -> None:
    with pytest.raises(PathError, match="outside the project root"):
        resolve_in_root(root, raw)


def test_absolute_path_outside_is_refused(root: Path, outside: Path) -> None:
    with pytest.raises(PathError, match="outside the project root"):
        resolve_in_root(root, str(outside / "secret.txt"))
    with pytest.raises(PathError):
        resolve_in_root(root, "/etc/passwd")


def test_sibling_with_root_name_prefix_is_refused(root: Path) -> None:
    sibling = root.parent / (root.name + "-other")
    sibling.mkdir()
    with pytest.raises(PathError):
        resolve_in_root(root, str(sibling / "x"))


def test_symlink_to_outside_is_refused(root: Path, outside: Path) -> None:
    (root / "link").symlink_to(outside / "secret.txt")
    (root / "dirlink").symlink_to(outside, target_is_directory=True)
    with pytest.raises(PathError):
        resolve_in_root(root, "link")
    with pytest.raises(PathError):
        resolve_in_root(root, "dirlink/secret.txt")


def test_dangling_symlink_to_outside_is_refused(root: Path, outside: Path) -> None:
    (root / "dangling").symlink_to(outside / "does-not-exist-yet")
    with pytest.raises(PathError):
        resolve_in_root(root, "dangling")


def test_symlink_inside_root_is_allowed(root: Path) -> None:
    (root / "real.txt").write_text("x\n")
    (root / "alias.txt").symlink_to(root / "real.txt")
    assert relative(root, resolve_in_root(root, "alias.txt")) == "real.txt"


@pytest.mark.parametrize("raw", ["a\0b", "a\nb", "tab\there", "bell\x07", "del\x7f"])
def test_control_characters_are_refused(root: Path, raw: str) -> None:
    with pytest.raises(PathError, match="control character"):
        resolve_in_root(root, raw)


@pytest.mark.parametrize("raw", ["~", "~/secret", "~root/x"])
def test_tilde_is_refused(root: Path, raw: str) -> None:
    with pytest.raises(PathError, match="not expanded"):
        resolve_in_root(root, raw)


def test_empty_path_is_refused(root: Path) -> None:
    with pytest.raises(PathError, match="empty"):
        resolve_in_root(root, "")
