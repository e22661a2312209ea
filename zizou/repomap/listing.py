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
from dataclasses import dataclass
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
MAX_UNLISTED_DIRS = 10_000  # watched directories that hold no listed file


@dataclass(frozen=True)
class _Watched:
    files: ProjectFiles
    paths: tuple[str, ...]  # absolute paths of directories and rule files
    stamps: tuple[Stamp, ...]
    sources: tuple[str, ...]  # absolute paths of files.sources, in the same order
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
            self._watched = _Watched(
                files, watched.paths, watched.stamps, watched.sources, watched.racy
            )
        return files

    def _list(self) -> ProjectFiles:
        # Stamp first: a change made while listing then shows at the next check.
        checked_ns = time.time_ns()
        paths = self._watch_list(self._watched.files if self._watched else None)
        stamps = _stamps(paths)
        files = list_project_files(self.root)
        listed_paths = self._watch_list(files)
        # New directories or rule files are stamped after the listing, so one changed in
        # between would hide: trust them from the next listing on.
        racy = listed_paths != paths
        if racy:
            paths, stamps = listed_paths, _stamps(listed_paths)
        racy = racy or any(stamp[2] >= checked_ns - RACY_NS for stamp in stamps)
        prefix = str(self.root) + os.sep
        sources = tuple(prefix + f.path for f in files.sources)
        self._watched = _Watched(files, paths, stamps, sources, racy)
        self.full_listings += 1
        return files

    def _watch_list(self, files: ProjectFiles | None) -> tuple[str, ...]:
        root = str(self.root)
        directories = {""}
        rules: set[str] = set()
        if files is not None:
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
    old = watched.files.sources
    changed: list[tuple[int, os.stat_result]] = []
    lstat = os.lstat
    for index, path in enumerate(watched.sources):
        known = old[index]
        try:
            info = lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):  # followed only within the root, as the listing did
            followed = source_stat(root, path, known.path)
            if followed is None:
                return None
            info = followed
        if info.st_mtime_ns != known.mtime_ns or info.st_size != known.size:
            changed.append((index, info))
    if not changed:
        return watched.files
    sources = list(old)
    for index, info in changed:
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
            return None
        file = old[index]
        sources[index] = SourceFile(file.path, file.language, info.st_size, info.st_mtime_ns)
    return ProjectFiles(tuple(sources), watched.files.others, watched.files.skipped)


__all__ = ["ProjectListing"]
