"""Where deck files are, and reading them: the deck folders (roots) in override order, their
deck files one level deep, and a file's text with the SHA-256 of its bytes.

The project's folder is read through `zizou.confined`: a symlinked `.zizou` or `.zizou/decks`,
a symlinked deck file, a FIFO or a file over 256 KiB is refused, never followed or read.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from zizou import confined
from zizou.decks.spec import Origin, Problem, shown_path
from zizou.errors import PathError
from zizou.paths import PROJECT_DIR_NAME

PROJECT_DECKS = f"{PROJECT_DIR_NAME}/decks"
USER_DECKS = "decks"
BUILTIN_DIR = Path(__file__).resolve().parent / "builtin"
MAX_DECK_BYTES = 256 * 1024
DECK_SUFFIXES = (".deck.md", ".deck.py")
CARD_SUFFIXES = (".card.md", ".card.py")
DIR_DECK = "deck.md"
# A file's name is shown and pasted into commands: plain names only.
_PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Root:
    """A folder decks are read from; `base` is the project root when its files are read
    through `zizou.confined` (they came with the repository)."""

    origin: Origin
    folder: Path
    base: Path | None = None

    def holds(self, path: Path) -> bool:
        return path.is_relative_to(self.folder)


class Bad(Exception):
    """A file cannot be loaded at all: the message and the line."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.line = line


def deck_name_of(path: Path) -> str:
    """The name a deck file gives its deck when its front matter sets none."""
    if path.name == DIR_DECK:
        return path.parent.name
    for suffix in (*DECK_SUFFIXES, *CARD_SUFFIXES):
        if path.name.endswith(suffix):
            return path.name.removesuffix(suffix)
    return path.stem


def roots_for(
    root: Path, config_dir: Path | None, extra: tuple[Path, ...] = ()
) -> tuple[list[Root], list[Path]]:
    """The roots, in override order, and the extra files as absolute paths."""
    base = confined.real_root(root)
    files = [Path(os.path.realpath(p.parent)) / p.name for p in extra]
    roots = [_root_of_folder("path", f.parent, base) for f in files]
    roots.append(Root("project", base / PROJECT_DECKS, base))
    if config_dir is not None:
        roots.append(Root("user", Path(os.path.normpath(Path.cwd() / config_dir / USER_DECKS))))
    roots.append(Root("builtin", BUILTIN_DIR))
    return roots, files


def _root_of_folder(origin: Origin, folder: Path, base: Path) -> Root:
    return Root(origin, folder, base if folder.is_relative_to(base) else None)


def read_file(path: Path, root: Root) -> tuple[str, str]:
    """The text of a deck or card file and the SHA-256 of its bytes; `Bad` when it cannot be
    read (a symlink, not a regular file, over 256 KiB, not UTF-8)."""
    if root.base is not None:
        try:
            data = confined.read_bytes(root.base, path.relative_to(root.base), MAX_DECK_BYTES)
        except PathError as err:
            raise Bad(f"not read: {err}") from None
    else:
        data = _read_plain(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise Bad(f"not UTF-8 text (byte {err.start})") from None
    return text, hashlib.sha256(data).hexdigest()


def _read_plain(path: Path) -> bytes:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except OSError as err:
        if path.is_symlink():
            raise Bad("not read: it is a symbolic link; zizou does not follow it") from None
        raise Bad(f"not read: {err.strerror or err}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Bad("not read: it is not a regular file")
        data = confined.read_fd(fd, MAX_DECK_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_DECK_BYTES:
        raise Bad(f"not read: it is larger than {MAX_DECK_BYTES // 1024} KiB")
    return data


def file_kind(path: Path, root: Root) -> str | None:
    """ "file", "dir", "other", or None when `path` does not exist; PathError for a symlink
    in a project path."""
    if root.base is not None:
        info = confined.stat(root.base, path.relative_to(root.base))
        mode = info.st_mode if info is not None else None
    else:
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = None
    if mode is None:
        return None
    return "file" if stat.S_ISREG(mode) else "dir" if stat.S_ISDIR(mode) else "other"


def discover(roots: list[Root], problems: list[Problem], warnings: list[str]) -> list[Path]:
    """The deck files of each root folder (not of the roots of given files), in order."""
    found: list[Path] = []
    for root in roots:
        if root.origin != "path":
            found += _discover_in(root, problems, warnings)
    return found


def _discover_in(root: Root, problems: list[Problem], warnings: list[str]) -> list[Path]:
    try:
        if file_kind(root.folder, root) != "dir":
            return []
        names = sorted(_entries(root))
    except (PathError, OSError) as err:
        problems.append(Problem(root.folder, 1, f"the decks here are skipped: {err}"))
        return []
    found: list[Path] = []
    for name, is_dir in names:
        if name.startswith((".", "_")) or not (is_dir or name.endswith(DECK_SUFFIXES)):
            continue
        if not _PLAIN_NAME.fullmatch(name):
            shown = name.encode("ascii", "backslashreplace").decode()
            warnings.append(
                f"a deck file in {shown_path(root.folder)} is skipped: its name {shown!r} has "
                "characters other than letters, digits, '.', '_' and '-'; rename it to use it"
            )
            continue
        if not is_dir:
            found.append(root.folder / name)
            continue
        candidate = root.folder / name / DIR_DECK
        try:
            if file_kind(candidate, root) is not None:
                found.append(candidate)
        except PathError as err:
            problems.append(Problem(root.folder / name, 1, f"skipped: {err}"))
    return found


def _entries(root: Root) -> list[tuple[str, bool]]:
    """(name, is a directory) of the root folder's entries; a symlink is not a directory."""
    if root.base is not None:
        listed = confined.scandir(root.base, root.folder.relative_to(root.base))
        return [(entry.name, entry.is_dir) for entry in listed]
    with os.scandir(root.folder) as entries:
        return [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]


def instructions_dir(folder: Path, root: Root) -> Path | None:
    try:
        found = file_kind(folder / "instructions", root) == "dir"
    except PathError:
        return None
    return folder / "instructions" if found else None


__all__ = [
    "BUILTIN_DIR",
    "CARD_SUFFIXES",
    "DECK_SUFFIXES",
    "DIR_DECK",
    "MAX_DECK_BYTES",
    "PROJECT_DECKS",
    "USER_DECKS",
    "Bad",
    "Root",
    "deck_name_of",
    "discover",
    "file_kind",
    "instructions_dir",
    "read_file",
    "roots_for",
]
