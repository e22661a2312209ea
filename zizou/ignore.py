"""One idea of "ignored" for glob, grep and list_dir, so each shows the model the same project.

Files come from git when the root is inside a repository (`git ls-files` is fast and exact) and
otherwise from a walk that honours every `.gitignore` on the way. Generated and vendored
directories (IGNORED_DIRS) are skipped either way, and secret files are named here once.
"""

from __future__ import annotations

import os
from pathlib import Path

import pathspec

from zizou import confined
from zizou.confined import relative
from zizou.errors import PathError
from zizou.git import run_git
from zizou.secret_files import SECRET_NAME_GLOBS, is_secret_name
from zizou.skipped_dirs import SKIPPED_DIRS

IGNORED_DIRS = SKIPPED_DIRS

SECRET_FILE_GLOBS = SECRET_NAME_GLOBS

GIT_TIMEOUT_S = 30.0
MAX_GITIGNORE_BYTES = 1 << 20

_Specs = list[tuple[str, pathspec.GitIgnoreSpec]]


def project_files(root: Path, base: Path) -> list[str]:
    """Root-relative POSIX paths of the files under `base` that are not ignored.

    `base` must already be resolved inside `root`. Directories in IGNORED_DIRS below `base` are
    skipped; naming one as `base` searches it anyway.
    """
    base_rel = relative(root, base)
    files = _git_files(root, base_rel)
    if files is None:
        files = _walk_files(root, base)
    prefix = "" if base_rel == "." else base_rel + "/"
    return [f for f in files if not IGNORED_DIRS.intersection(f[len(prefix) :].split("/")[:-1])]


def _git_files(root: Path, base_rel: str) -> list[str] | None:
    """Tracked and untracked-but-not-ignored files per git, or None when git cannot say."""
    command = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]
    done = run_git(root, [*command, "--", base_rel], timeout=GIT_TIMEOUT_S, reads_contents=False)
    if done is None or done.returncode != 0:
        return None
    names = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    return sorted({name for name in names if name})


def _walk_files(root: Path, base: Path) -> list[str]:
    """Walk `base` with os.scandir, honouring each .gitignore from the root down."""
    real_root = Path(os.path.realpath(root))
    found: list[str] = []
    stack: list[tuple[Path, _Specs]] = [(base, _ancestor_specs(real_root, base))]
    while stack:
        directory, specs = stack.pop()
        prefix = _prefix(real_root, directory)
        spec = _read_spec(real_root, directory)
        if spec is not None:
            specs = [*specs, (prefix, spec)]
        try:
            with os.scandir(directory) as entries:
                listed = list(entries)
        except OSError:
            continue
        for entry in listed:
            is_dir = entry.is_dir(follow_symlinks=False)
            rel = prefix + entry.name
            if (is_dir and entry.name in IGNORED_DIRS) or _ignored(specs, rel, is_dir):
                continue
            if is_dir:
                stack.append((Path(entry.path), specs))
            else:
                found.append(rel)
    return sorted(found)


def _prefix(real_root: Path, directory: Path) -> str:
    rel = relative(real_root, directory)
    return "" if rel == "." else rel + "/"


def _ancestor_specs(real_root: Path, base: Path) -> _Specs:
    """The .gitignore rules of the directories from the root down to (not including) `base`."""
    specs: _Specs = []
    rel_parts = base.relative_to(real_root).parts
    for depth in range(len(rel_parts)):
        directory = real_root.joinpath(*rel_parts[:depth])
        spec = _read_spec(real_root, directory)
        if spec is not None:
            specs.append((_prefix(real_root, directory), spec))
    return specs


def _read_spec(real_root: Path, directory: Path) -> pathspec.GitIgnoreSpec | None:
    """The rules of `directory/.gitignore`, read by fd without following a link and without
    blocking (a FIFO planted as `.gitignore` reads as empty); None when there is none."""
    try:
        data = confined.read_head(real_root, directory / ".gitignore", MAX_GITIGNORE_BYTES)
    except (OSError, PathError):
        return None
    lines = data.decode("utf-8", errors="replace")
    return pathspec.GitIgnoreSpec.from_lines(lines.splitlines())


def _ignored(specs: _Specs, rel: str, is_dir: bool) -> bool:
    """Git's rule: the deepest .gitignore with a matching pattern decides; its last match wins."""
    for prefix, spec in reversed(specs):
        local = rel[len(prefix) :] + ("/" if is_dir else "")
        decision = spec.check_file(local).include
        if decision is not None:
            return bool(decision)
    return False


__all__ = ["IGNORED_DIRS", "SECRET_FILE_GLOBS", "is_secret_name", "project_files"]
