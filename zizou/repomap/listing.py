"""The map's file list kept between renders, checked cheaply instead of listed again.

The prompt renders the map at every agent step. Listing the project (`git ls-files --others`
walks the whole work tree, then every path is classified) costs several times more than the rest
of a step, and between two steps almost nothing changed. So the listing is kept, with what could
make it wrong:

- the directories holding listed files, their ancestors, and the directories below them that
  hold no listed file yet (empty ones, followed down): a file created, deleted or renamed in a
  directory (by zizou's own write, a command, or the user's editor) changes its mtime;
- the ignore rules (every listed `.gitignore`, those above the root inside the repository,
  `info/exclude`) and git's index (`git add`, `git rm`, a checkout);
- the sources' own size and mtime, re-stat'ed at every check: an edit in place changes no
  directory.

When a watched directory or rule file moved, or a source can no longer be stat'ed plainly, the
project is listed again in full. A directory whose mtime is within RACY_NS of the check may hide a
same-tick change, so the next check lists again. What this misses: a new file deep inside a
directory that holds only ignored files (it shows with the next full listing).
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass, replace
from operator import attrgetter
from pathlib import Path

from zizou.git import find_repository
from zizou.ignore import IGNORED_DIRS
from zizou.repomap.files import (
    MAX_SOURCE_BYTES,
    ProjectFiles,
    SourceFile,
    list_project_files,
    source_stat,
)
from zizou.repomap.parse import RACY_NS

Stamp = tuple[int, int, int]  # (inode, size, mtime_ns); (0, 0, 0) for a path that is not there
MISSING: Stamp = (0, 0, 0)
_MTIME_SIZE = attrgetter("st_mtime_ns", "st_size")
MAX_UNLISTED_DIRS = 10_000  # watched directories that hold no listed file


@dataclass(frozen=True)
class _Watched:
    files: ProjectFiles
    paths: tuple[str, ...]  # absolute paths of directories and rule files
    stamps: tuple[Stamp, ...]
    sources: tuple[str, ...]  # absolute paths of files.sources, in the same order
    known: list[tuple[int, int]]  # their (mtime_ns, size) as listed
    racy: bool  # something watched moved too recently to trust: list again next time


class ProjectListing:
    """One project's files as the map sees them; `current()` is cheap when little changed.
    Not thread-safe: the RepoMap calls it under its lock."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._watched: _Watched | None = None
        self.full_listings = 0  # how many times the project was listed in full

    def current(self) -> ProjectFiles:
        """The files now: the kept listing with fresh stats, or a new listing."""
        watched = self._watched
        if watched is None or watched.racy or _stamps(watched.paths) != watched.stamps:
            return self._list()
        files = _restat(self.root, watched)
        if files is None:
            return self._list()
        if files is not watched.files:
            known = [(f.mtime_ns, f.size) for f in files.sources]
            self._watched = replace(watched, files=files, known=known)
        return files

    def _list(self) -> ProjectFiles:
        # Anything that moves from here on has an mtime past checked_ns - RACY_NS, so a change
        # made while listing, before the stamps are taken, makes the listing racy.
        checked_ns = time.time_ns()
        files = list_project_files(self.root)
        paths = self._watch_list(files)
        stamps = _stamps(paths)
        racy = any(stamp[2] >= checked_ns - RACY_NS for stamp in stamps)
        prefix = str(self.root) + os.sep
        sources = tuple(prefix + f.path for f in files.sources)
        known = [(f.mtime_ns, f.size) for f in files.sources]
        self._watched = _Watched(files, paths, stamps, sources, known, racy)
        self.full_listings += 1
        return files

    def _watch_list(self, files: ProjectFiles) -> tuple[str, ...]:
        root = str(self.root)
        directories = {""}
        rules: set[str] = set()
        for path in [*(f.path for f in files.sources), *files.others]:
            head, _, name = path.rpartition("/")
            if name == ".gitignore":
                rules.add(path)
            while head not in directories:
                directories.add(head)
                head = head.rpartition("/")[0]
        below = _subdirectories(root, directories)
        absolute = {root + "/" + d if d else root for d in directories | below}
        absolute |= {root + "/" + rule for rule in rules}
        absolute |= self._git_rules()
        return tuple(sorted(absolute))

    def _git_rules(self) -> set[str]:
        """git's index, `info/exclude`, and the `.gitignore` files above the root."""
        repo = find_repository(self.root)
        if repo is None:
            return set()
        found = {str(repo.git_dir / "index"), str(repo.git_dir / "info" / "exclude")}
        directory = self.root
        while directory != repo.work_tree and directory.parent != directory:
            directory = directory.parent
            found.add(str(directory / ".gitignore"))
        return found


def _subdirectories(root: str, directories: set[str]) -> set[str]:
    """Directories inside the watched ones that hold no listed file: a file created in one
    changes its mtime. Those holding only directories (`mkdir -p a/b/c`) are followed down; one
    holding files that are all ignored (a build's output) is watched but not entered."""
    found: set[str] = set()
    pending = [(directory, True) for directory in directories]
    while pending and len(found) < MAX_UNLISTED_DIRS:
        directory, listed = pending.pop()
        children: list[str] = []
        try:
            with os.scandir(root + "/" + directory if directory else root) as entries:
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):
                        if not listed:
                            children = []
                            break
                    elif entry.name not in IGNORED_DIRS:
                        children.append(directory + "/" + entry.name if directory else entry.name)
        except OSError:
            continue
        for child in children:
            if child not in directories and child not in found:
                found.add(child)
                pending.append((child, False))
    return found


def _stamps(paths: tuple[str, ...]) -> tuple[Stamp, ...]:
    return tuple(map(_stamp, paths))


def _stamp(path: str) -> Stamp:
    try:
        info = os.lstat(path)
    except OSError:
        return MISSING
    return (info.st_ino, info.st_size, info.st_mtime_ns)


def _restat(root: Path, watched: _Watched) -> ProjectFiles | None:
    """The kept listing with each source's size and mtime now; the same object when none moved,
    None when a source needs the full listing's care (gone, too big, no longer a plain file)."""
    try:  # the stats and their comparison run in C; only the sources that moved are visited
        now = list(map(_MTIME_SIZE, map(os.lstat, watched.sources)))
    except OSError:
        return None
    if now == watched.known:
        return watched.files
    old = watched.files.sources
    sources = list(old)
    for index, (seen, known) in enumerate(zip(now, watched.known, strict=True)):
        if seen == known:
            continue
        file = old[index]
        info = source_stat(root, watched.sources[index], file.path)  # a link is followed inside
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            return None
        sources[index] = SourceFile(file.path, file.language, info.st_size, info.st_mtime_ns)
    if sources == list(old):  # only links, whose targets did not move
        return watched.files
    return ProjectFiles(tuple(sources), watched.files.others, watched.files.skipped)


__all__ = ["ProjectListing"]
