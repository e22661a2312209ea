"""Which of the project's files the map looks at.

The list comes from the same place as glob and grep (`tools/_ignore.py`: `git ls-files` in a git
repository, else a walk that honours .gitignore), so the map shows the model the same project.
On top of that the map leaves out vendored and generated trees, binary and bulky formats (lock
files, minified bundles, images), and source files over a size limit. Source files in a language
we parse are stat'ed so the cache can tell whether they changed; every other file is kept by name.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

from zizou import confined
from zizou.errors import PathError
from zizou.ignore import project_files
from zizou.paths import DEBUG_LOG_NAME
from zizou.repomap.tags import language_for
from zizou.secret_files import is_secret_name

MAX_SOURCE_BYTES = 1_000_000


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Other projects' code kept in this one. A bundled typeshed (mypy, pyright and jedi carry one)
# is stubs for the standard library and third-party packages, synced from upstream and not edited
# here; as half of mypy's definitions, used everywhere, it would lead the map with `Buffer` and
# `PathLike` rather than the project's own code. Left out like vendor/, so the map spends its
# budget on the project; grep and read_file still reach these files when they matter.
VENDORED_DIRS = frozenset(
    {
        "typeshed",
        "vendor",
        "vendors",
        "third_party",
        "third-party",
        "thirdparty",
        "bower_components",
        "jspm_packages",
        "Pods",
        "Carthage",
        "external",
        "__generated__",
        "generated",
        ".yarn",
        ".gradle",
        ".idea",
        ".vscode",
    }
)

SKIPPED_SUFFIXES = _words(
    ".png .jpg .jpeg .gif .bmp .ico .icns .webp .tif .tiff .svg .psd .pdf .eps .zip .gz "
    ".tgz .bz2 .xz .zst .7z .rar .tar .jar .war .ear .class .whl .egg .so .dylib .dll "
    ".exe .o .a .lib .obj .pyc .pyo .pyd .wasm .bin .dat .db .sqlite .woff .woff2 .ttf "
    ".otf .eot .mp3 .mp4 .wav .ogg .flac .mov .avi .webm .mkv .lock .map .min.js "
    ".min.css .pb .onnx .pt .pth .npy .npz .parquet .pkl .pickle"
)
_SKIPPED_ENDINGS = tuple(sorted(SKIPPED_SUFFIXES))
SKIPPED_NAMES = frozenset(
    {"package-lock.json", "pnpm-lock.yaml", "go.sum", "npm-shrinkwrap.json", DEBUG_LOG_NAME}
)


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file in a language we parse, with the stat the cache compares against."""

    path: str  # project-relative POSIX path
    language: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class ProjectFiles:
    sources: tuple[SourceFile, ...]  # sorted by path
    others: tuple[str, ...]  # sorted; shown by name only
    skipped: int  # listed by git or the walk but left out of the map

    @cached_property
    def digest(self) -> bytes:
        """Every source's path, size and mtime and the other files' names, hashed once per
        listing (a kept listing is the same object from step to step: listing.py)."""
        digest = hashlib.blake2b(digest_size=16)
        digest.update("".join(f"{f.path}\0{f.size}\0{f.mtime_ns}\n" for f in self.sources).encode())
        digest.update("\0".join(self.others).encode())
        return digest.digest()

    @cached_property
    def by_path(self) -> dict[str, SourceFile]:
        return {f.path: f for f in self.sources}

    @cached_property
    def newest_mtime_ns(self) -> int:
        return max((f.mtime_ns for f in self.sources), default=0)


def list_project_files(root: Path) -> ProjectFiles:
    """The files the map covers, split into parsed sources and files shown by name."""
    sources: list[SourceFile] = []
    others: list[str] = []
    skipped = 0
    prefix = str(root) + os.sep
    for rel in project_files(root, root):
        language = _kind(rel)
        if language == SKIPPED:
            skipped += 1
            continue
        if language is None:
            others.append(rel)
            continue
        info = source_stat(root, prefix + rel, rel)
        if info is None:
            skipped += 1  # listed by git but deleted, a dangling link, or a link out of the root
            continue
        if info.st_size > MAX_SOURCE_BYTES or not stat.S_ISREG(info.st_mode):
            skipped += 1
            continue
        sources.append(SourceFile(rel, language, info.st_size, info.st_mtime_ns))
    return ProjectFiles(tuple(sources), tuple(others), skipped)


def source_stat(root: Path, path: str, rel: str) -> os.stat_result | None:
    """The file's stat; a symlink is followed only when it resolves inside the root."""
    try:
        info = os.lstat(path)
        if not stat.S_ISLNK(info.st_mode):
            return info
        return confined.stat(root, confined.resolve_unasked(root, rel))
    except (OSError, PathError):
        return None


def read_source(root: Path, rel: str) -> tuple[os.stat_result, bytes]:
    """The stat and content of a listed file, resolved strictly and read through one fd that
    was opened without following symlinks: a link out of the root, or a directory swapped for
    one since the listing, is a PathError, never a read outside the project."""
    try:  # most files: the O_NOFOLLOW walk alone opens them
        fd = confined.open_file(root, rel, os.O_RDONLY)
    except PathError:  # a symlink on the way: resolve it strictly (a link out is refused)
        fd = confined.open_file(root, confined.resolve_unasked(root, rel), os.O_RDONLY)
    with os.fdopen(fd, "rb") as handle:
        return os.fstat(fd), handle.read()


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO planted in the project must not hang the map (it is then no regular file).
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY
KEPT_DIRECTORIES = 256  # open directory fds a SourceReader holds at most


class SourceReader:
    """Reads many listed files as `read_source` does, each directory opened once rather than
    walked again from the root for every file in it: a cold map reads thousands of files a few
    directories deep, and the walk cost a third as much as parsing them.

    Every directory is opened with O_NOFOLLOW relative to its parent's fd, from the real root
    down, and every file with O_NOFOLLOW relative to its directory's fd, so nothing is read
    through a symlink. Whatever that refuses (a symlink on the way, a file gone) is handed to
    `read_source`, which resolves a link inside the project and refuses one leading out.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._dirs: dict[str, int] = {}

    def __enter__(self) -> SourceReader:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._dirs.values():
            os.close(fd)
        self._dirs.clear()

    def read(self, rel: str) -> tuple[os.stat_result, bytes]:
        head, _, name = rel.rpartition("/")
        try:
            fd = os.open(name, _FILE_FLAGS, dir_fd=self._directory(head))
        except (OSError, ValueError):
            return read_source(self.root, rel)
        with os.fdopen(fd, "rb") as handle:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise PathError(f"{rel} is not a regular file")
            return info, handle.read()

    def _directory(self, rel: str) -> int:
        fd = self._dirs.get(rel)
        if fd is not None:
            return fd
        if len(self._dirs) >= KEPT_DIRECTORIES:
            self.close()
        if not rel:
            fd = os.open(confined.real_root(self.root), _DIR_FLAGS)
        else:
            parent, _, name = rel.rpartition("/")
            if name in ("", ".", ".."):
                raise ValueError(f"{rel} is not a listed path")
            fd = os.open(name, _DIR_FLAGS, dir_fd=self._directory(parent))
        self._dirs[rel] = fd
        return fd


SKIPPED = "\0skipped"  # a `_kind` that is no language: the map leaves the file out


@lru_cache(maxsize=1 << 17)
def _kind(rel: str) -> str | None:
    """What the map makes of a path, by its name alone: SKIPPED, a source's language, or None
    (a file shown by name). Remembered: the map lists the same paths at every step."""
    return language_for(rel) if _wanted(rel) else SKIPPED


def _wanted(rel: str) -> bool:
    parts = rel.split("/")
    name = parts[-1]
    if VENDORED_DIRS.intersection(parts[:-1]) or name in SKIPPED_NAMES or is_secret_name(name):
        return False
    return not name.lower().endswith(_SKIPPED_ENDINGS)


__all__ = [
    "MAX_SOURCE_BYTES",
    "ProjectFiles",
    "SourceFile",
    "SourceReader",
    "list_project_files",
    "read_source",
    "source_stat",
]
