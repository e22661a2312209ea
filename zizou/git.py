"""zizou's own git commands, run so that nothing in a repository's files can run code.

git runs commands named in a repository's config (`core.fsmonitor`, hooks, pagers, filter
drivers), and it finds a repository by itself: any directory holding `HEAD`, `config`,
`objects/` and `refs/` passes for a bare repository. The model can write such files into the
project, so zizou never lets git look for a repository:

- zizou finds it: the nearest `.git` at or above the project root, either a directory holding
  `HEAD` or a `gitdir:` file (a linked worktree or a submodule) pointing at one. Nothing else
  counts. The answer is decided once per process for each root, so a `.git` created during the
  session (by the model, or by `git init`) is only seen after zizou restarts.
- git is then told exactly where the repository is (`--git-dir`, `--work-tree`) and run with
  the config that runs code switched off on the command line (which outranks every config
  file), every filter driver emptied, no terminal, no pager, stdin from /dev/null, a timeout,
  and an environment with secrets and the caller's `GIT_*` variables removed.
- Without a repository, no git process is started at all.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zizou.env import scrubbed_env

DEFAULT_TIMEOUT_S = 10.0
GITDIR_FILE_LIMIT = 4096

SAFE_CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "safe.bareRepository=explicit",
    "core.pager=cat",
    "diff.external=",
)
FIXED_ENV = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_CONFIG_NOSYSTEM": "1",
}
FILTER_KEYS = (("clean", ""), ("smudge", ""), ("process", ""), ("required", "false"))


@dataclass(frozen=True)
class Repository:
    """Where the repository's data lives and the work tree it belongs to (both resolved)."""

    git_dir: Path
    work_tree: Path


_found: dict[Path, Repository | None] = {}
_found_lock = threading.Lock()


def find_repository(root: Path) -> Repository | None:
    """The repository `root` is in, decided once per process for each real root; None outside
    git (see the module docstring for what counts)."""
    try:
        real = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    with _found_lock:
        if real not in _found:
            _found[real] = _discover(real)
        return _found[real]


def _discover(real_root: Path) -> Repository | None:
    for directory in (real_root, *real_root.parents):
        entry = directory / ".git"
        git_dir = _git_dir_of(entry)
        if git_dir is not None:
            return Repository(git_dir, directory)
    return None


def _git_dir_of(entry: Path) -> Path | None:
    """The repository directory a `.git` entry stands for, or None when it is not one."""
    try:
        if entry.is_dir():
            return entry.resolve(strict=True) if _holds_head(entry) else None
        if not entry.is_file():
            return None
        with entry.open("rb") as file:
            head = file.read(GITDIR_FILE_LIMIT).decode("utf-8")
    except (OSError, RuntimeError, UnicodeDecodeError):
        return None
    first = head.splitlines()[0] if head else ""
    if not first.startswith("gitdir:"):
        return None
    target = Path(first[len("gitdir:") :].strip())
    if not target.parts:
        return None
    try:
        resolved = (entry.parent / target).resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    return resolved if resolved.is_dir() and _holds_head(resolved) else None


def _holds_head(git_dir: Path) -> bool:
    return (git_dir / "HEAD").is_file()


def git_environment(environ: Mapping[str, str], work_tree: Path) -> dict[str, str]:
    """`environ` without secrets or any `GIT_*` variable, plus zizou's fixed settings."""
    env = {k: v for k, v in scrubbed_env(environ).items() if not k.upper().startswith("GIT_")}
    env.update(FIXED_ENV)
    env["GIT_CEILING_DIRECTORIES"] = str(work_tree.parent)
    return env


def git_command(repo: Repository, args: Sequence[str]) -> list[str]:
    """The full argv for `git ARGS` in `repo`, with the code-running config switched off."""
    command = ["git", "--no-pager", f"--git-dir={repo.git_dir}", f"--work-tree={repo.work_tree}"]
    for setting in SAFE_CONFIG:
        command += ["-c", setting]
    return [*command, *args]


def run_git(
    root: Path,
    args: Sequence[str],
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    reads_contents: bool = True,
) -> subprocess.CompletedProcess[bytes] | None:
    """Run `git ARGS` for the project at `root` (cwd = root, so paths that git prints relative
    to the current directory are relative to `root`). None when `root` is in no repository,
    git cannot be started, or it ran out of time; otherwise the finished process, whatever
    its exit code.

    A command that may read file contents (`status` does, to compare them) first has every
    filter driver emptied, which costs one more git process; pass `reads_contents=False`
    only for one that reads names alone (`ls-files`, `rev-parse`)."""
    repo = find_repository(root)
    if repo is None:
        return None
    env = git_environment(os.environ, repo.work_tree)
    cwd = root.resolve()
    if not reads_contents:
        return _run(repo, cwd, env, args, timeout)
    filters = _run(repo, cwd, env, ["config", "-z", "--name-only", "--get-regexp", r"^filter\."])
    if filters is None or filters.returncode not in (0, 1):  # 1: no filter configured
        return None
    env.update(_filter_overrides(filters.stdout))
    return _run(repo, cwd, env, args, timeout)


def _run(
    repo: Repository,
    cwd: Path,
    env: dict[str, str],
    args: Sequence[str],
    timeout: float = DEFAULT_TIMEOUT_S,
) -> subprocess.CompletedProcess[bytes] | None:
    try:
        return subprocess.run(
            git_command(repo, args),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None


def _filter_overrides(names: bytes) -> dict[str, str]:
    """Config that empties every filter driver the repository's config names, as
    GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n pairs: unlike `-c`, they take any subsection name.
    (`git status` runs a file's clean filter to compare it with the index.)"""
    drivers: dict[str, None] = {}
    for key in names.decode("utf-8", "surrogateescape").split("\0"):
        driver, dot, _ = key[len("filter.") :].rpartition(".")
        if key.startswith("filter.") and dot:
            drivers[driver] = None
    pairs = [(f"filter.{d}.{name}", value) for d in drivers for name, value in FILTER_KEYS]
    env = {"GIT_CONFIG_COUNT": str(len(pairs))}
    for index, (key, value) in enumerate(pairs):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


__all__ = ["Repository", "find_repository", "git_command", "git_environment", "run_git"]
