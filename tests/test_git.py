"""zizou's own git: only a repository the user opened counts, and nothing in one runs code."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from zizou.agent.git_info import git_summary
from zizou.git import Repository, find_repository, git_command, git_environment, run_git
from zizou.ignore import project_files
from zizou.trace.git_exclude import ensure_excluded

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
    }
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def marker_script(tmp_path: Path, name: str = "ran") -> tuple[Path, Path]:
    """A script that creates a marker file outside the project, and that marker."""
    marker = tmp_path / f"{name}.marker"
    script = tmp_path / f"{name}.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat >/dev/null\n")
    script.chmod(0o755)
    return script, marker


def plant_bare_repo(directory: Path, script: Path) -> None:
    """What write_file can create: HEAD, config, objects/ and refs/, as a bare repository whose
    config names the project as its work tree and `script` as its fsmonitor."""
    (directory / "objects").mkdir(parents=True)
    (directory / "refs").mkdir()
    (directory / "HEAD").write_text("ref: refs/heads/main\n")
    (directory / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
        f"\tworktree = {directory}\n\tfsmonitor = {script}\n\thooksPath = {directory}\n"
    )


def poison_config(git_dir: Path, script: Path) -> None:
    """Config that makes a plain git run `script`: fsmonitor, pager, hooks, a filter driver."""
    with (git_dir / "config").open("a") as file:
        file.write(
            f"[core]\n\tfsmonitor = {script}\n\tpager = {script}\n\thooksPath = {script.parent}\n"
            f'[filter "x=y"]\n\tclean = {script}\n\tprocess = {script}\n\trequired = true\n'
            f"[diff]\n\texternal = {script}\n"
        )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "README.md").write_text("# r\n")
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / ".gitignore").write_text("*.log\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


def test_a_planted_bare_repository_is_live_for_plain_git(tmp_path: Path) -> None:
    """The attack is real: without zizou's guard, `git status` runs the planted command."""
    project = tmp_path / "project"
    script, marker = marker_script(tmp_path)
    plant_bare_repo(project, script)
    subprocess.run(["git", "status"], cwd=project, capture_output=True, check=False)
    assert marker.exists()


def test_a_planted_bare_repository_in_a_plain_folder_runs_nothing(tmp_path: Path) -> None:
    project = tmp_path / "project"
    script, marker = marker_script(tmp_path)
    plant_bare_repo(project, script)
    (project / "main.py").write_text("print(1)\n")

    assert find_repository(project) is None
    assert run_git(project, ["status"]) is None
    assert git_summary(project) == "not a git repository"
    assert "main.py" in project_files(project, project)
    assert ensure_excluded(project) == []
    assert not marker.exists()
    assert not (project / "info").exists()


def test_a_planted_bare_repository_in_a_subdirectory_of_a_repo(repo: Path, tmp_path: Path) -> None:
    sub = repo / "src"
    script, marker = marker_script(tmp_path)
    plant_bare_repo(sub, script)

    assert find_repository(sub) == Repository((repo / ".git").resolve(), repo.resolve())
    assert git_summary(sub).startswith("branch main; ")
    assert "pkg/mod.py" in project_files(sub, sub)
    assert "HEAD" in project_files(sub, sub)  # just a file in the work tree
    ensure_excluded(sub)
    assert not marker.exists()


def test_a_repositorys_own_config_runs_nothing(repo: Path, tmp_path: Path) -> None:
    script, marker = marker_script(tmp_path)
    poison_config(repo / ".git", script)
    (repo / ".gitattributes").write_text("* filter=x=y\n")
    os.utime(repo / "README.md", (1, 1))  # stat differs from the index: status reads the file
    (repo / "new.py").write_text("y = 2\n")

    summary = git_summary(repo)
    files = project_files(repo, repo)
    assert ensure_excluded(repo) != []

    assert not marker.exists()
    assert summary.startswith("branch main; ") and "new.py" in summary
    assert {"README.md", "new.py", ".gitattributes", "src/pkg/mod.py"} <= set(files)
    quiet = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "filter.x=y.process"}
    env = {**os.environ, **quiet, "GIT_CONFIG_VALUE_0": ""}  # a "process" would never answer
    subprocess.run(["git", "status"], cwd=repo, env=env, capture_output=True, check=False)
    assert marker.exists()  # and plain git would have run it


def test_a_subdirectory_of_a_repo_lists_paths_relative_to_it(repo: Path) -> None:
    sub = repo / "src"
    (sub / "pkg" / "new.py").write_text("z = 3\n")
    (sub / "debug.log").write_text("ignored\n")
    assert project_files(sub, sub) == ["pkg/mod.py", "pkg/new.py"]
    assert project_files(sub, sub / "pkg") == ["pkg/mod.py", "pkg/new.py"]
    assert git_summary(sub) == "branch main; 1 changed or untracked: src/pkg/new.py"


def test_output_matches_plain_git_in_a_normal_repo(repo: Path) -> None:
    (repo / "README.md").write_text("# changed\n")
    (repo / "extra.txt").write_text("e\n")
    status = ["status", "--porcelain=v1", "--branch", "--untracked-files=normal"]
    ls_files = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."]
    for args in (status, ls_files):
        ours = run_git(repo, args)
        assert ours is not None and ours.returncode == 0
        assert ours.stdout.decode() == git(repo, *args)


def test_the_repository_is_decided_once_per_root(repo: Path, tmp_path: Path) -> None:
    sub = repo / "src"
    assert find_repository(sub) == Repository((repo / ".git").resolve(), repo.resolve())
    script, marker = marker_script(tmp_path)
    git(sub, "init", "-q", "-b", "planted")  # a .git created mid-session
    poison_config(sub / ".git", script)
    assert find_repository(sub) == Repository((repo / ".git").resolve(), repo.resolve())
    assert git_summary(sub).startswith("branch main")
    assert not marker.exists()


def test_a_nested_repository_present_at_start_is_the_one_opened(repo: Path, tmp_path: Path) -> None:
    sub = repo / "src"
    git(sub, "init", "-q", "-b", "inner")
    script, marker = marker_script(tmp_path)
    poison_config(sub / ".git", script)
    assert find_repository(sub) == Repository((sub / ".git").resolve(), sub.resolve())
    assert git_summary(sub).startswith("branch No commits yet on inner")
    assert ensure_excluded(sub) != []
    assert not marker.exists()


def test_a_worktree_is_found_through_its_gitdir_file(repo: Path, tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    git(repo, "worktree", "add", "-q", "-b", "side", str(tree))
    found = find_repository(tree)
    assert found is not None and found.work_tree == tree.resolve()
    assert found.git_dir == (repo / ".git" / "worktrees" / "tree").resolve()
    assert git_summary(tree) == "branch side; working tree clean"


@pytest.mark.parametrize(
    "dot_git",
    ["gitdir: missing\n", "gitdir: ../elsewhere\n", "not a gitdir line\n", ""],
)
def test_a_gitdir_file_must_point_at_a_repository(tmp_path: Path, dot_git: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "elsewhere").mkdir()  # exists, but holds no HEAD
    (project / ".git").write_text(dot_git)
    assert find_repository(project) is None


def test_a_git_directory_without_head_does_not_count(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git" / "objects").mkdir(parents=True)
    (project / ".git" / "config").write_text("[core]\n\tbare = false\n")
    assert find_repository(project) is None


def test_no_git_starts_outside_a_repository(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    started = tmp_path / "git-started"
    fake = fake_bin / "git"
    fake.write_text(f"#!/bin/sh\ntouch '{started}'\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake_bin}{os.pathsep}{os.environ['PATH']}")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert run_git(plain, ["status"]) is None
    assert git_summary(plain) == "not a git repository"
    assert not started.exists()


def test_the_callers_git_variables_cannot_redirect_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q", "-b", "elsewhere")
    script, marker = marker_script(tmp_path)
    config = tmp_path / "evil.gitconfig"
    config.write_text(f"[core]\n\tfsmonitor = {script}\n")
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{script}'")
    assert git_summary(repo) == "branch main; working tree clean"
    assert not marker.exists()


def test_the_environment_is_scrubbed_and_pinned(tmp_path: Path) -> None:
    work_tree = tmp_path / "repo"
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "OPENAI_API_KEY": "sk-secret",
        "GIT_DIR": "/elsewhere",
        "GIT_EXEC_PATH": "/evil",
        "GIT_SSH_COMMAND": "evil",
        "git_askpass": "evil",
        "GIT_PAGER": "less",
    }
    env = git_environment(environ, work_tree)
    assert env == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "GIT_PAGER": "cat",
        "PAGER": "cat",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
    }


def test_the_command_names_the_repository_and_switches_code_off(tmp_path: Path) -> None:
    repository = Repository(tmp_path / "r" / ".git", tmp_path / "r")
    command = git_command(repository, ["status"])
    assert command[:4] == [
        "git",
        "--no-pager",
        f"--git-dir={tmp_path / 'r' / '.git'}",
        f"--work-tree={tmp_path / 'r'}",
    ]
    settings = command[5:-1:2]
    assert "core.fsmonitor=false" in settings and "core.hooksPath=/dev/null" in settings
    assert "safe.bareRepository=explicit" in settings and "diff.external=" in settings
    assert command[-1] == "status"
