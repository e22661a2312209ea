"""zizou-debug.log and .zizou/ land in .git/info/exclude, once, in repos and worktrees alike."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from zizou.trace.git_exclude import PATTERNS, ensure_excluded, exclude_file

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "PATH": "/usr/bin:/bin:/usr/local/bin",
        "HOME": str(cwd),
    }
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def ignored(root: Path, *paths: str) -> bool:
    result = subprocess.run(
        ["git", "check-ignore", *paths], cwd=root, capture_output=True, text=True, check=False
    )
    return result.returncode == 0 and len(result.stdout.splitlines()) == len(paths)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    return root


def test_the_log_and_the_project_dir_are_excluded_once(repo: Path) -> None:
    assert ensure_excluded(repo) == list(PATTERNS)
    assert ensure_excluded(repo) == []
    text = (repo / ".git" / "info" / "exclude").read_text()
    assert [line for line in text.splitlines() if line in PATTERNS] == list(PATTERNS)
    (repo / "zizou-debug.log").write_text("x")
    (repo / "zizou-debug.4242.log").write_text("x")  # a second process's
    (repo / ".zizou").mkdir()
    (repo / ".zizou" / "info.json").write_text("{}")
    assert ignored(repo, "zizou-debug.log", "zizou-debug.4242.log", ".zizou/info.json")
    assert git(repo, "status", "--porcelain") == ""


def test_existing_lines_are_kept_and_a_missing_newline_is_added(repo: Path) -> None:
    exclude = repo / ".git" / "info" / "exclude"
    exclude.write_text("*.tmp\n.zizou/")  # one of ours already there, no final newline
    assert ensure_excluded(repo) == ["zizou-debug.log", "zizou-debug.*.log"]
    lines = exclude.read_text().splitlines()
    assert lines[:2] == ["*.tmp", ".zizou/"] and lines[-1] == "zizou-debug.*.log"


def test_a_subdirectory_of_the_repo_is_covered(repo: Path) -> None:
    sub = repo / "packages" / "app"
    sub.mkdir(parents=True)
    ensure_excluded(sub)
    (sub / "zizou-debug.log").write_text("x")
    assert ignored(repo, "packages/app/zizou-debug.log")


def test_a_worktree_where_git_is_a_file(repo: Path, tmp_path: Path) -> None:
    (repo / "README").write_text("hi\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "init")
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", str(tree))
    assert (tree / ".git").is_file()
    assert ensure_excluded(tree) == list(PATTERNS)
    path = exclude_file(tree)
    assert path is not None and path.resolve() == (repo / ".git" / "info" / "exclude").resolve()
    (tree / "zizou-debug.log").write_text("x")
    assert ignored(tree, "zizou-debug.log")


def test_outside_git_nothing_happens(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    assert exclude_file(plain) is None
    assert ensure_excluded(plain) == []
    assert not (plain / ".git").exists()


def test_a_planted_bare_repository_is_not_a_repository(tmp_path: Path) -> None:
    """HEAD, config, objects/ and refs/ written into a plain folder: no exclude file, no git."""
    plain = tmp_path / "plain"
    (plain / "objects").mkdir(parents=True)
    (plain / "refs").mkdir()
    (plain / "HEAD").write_text("ref: refs/heads/main\n")
    marker = tmp_path / "ran"
    (plain / "config").write_text(
        f"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = {plain}\n"
        f"\tfsmonitor = touch {marker}\n"
    )
    assert exclude_file(plain) is None
    assert ensure_excluded(plain) == []
    assert not (plain / "info").exists() and not marker.exists()


def test_a_planted_link_in_place_of_info_exclude_is_not_appended_to(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    victim = tmp_path / "bashrc"
    victim.write_text("# the user's file\n")
    exclude = root / ".git" / "info" / "exclude"
    exclude.unlink(missing_ok=True)
    exclude.parent.mkdir(parents=True, exist_ok=True)
    exclude.symlink_to(victim)
    assert ensure_excluded(root) == []
    assert victim.read_text() == "# the user's file\n"
