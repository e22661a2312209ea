"""Which commands only read, and only inside the project: those never ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.agent.permissions import READ_ONLY_REASON, Rules, decide
from zizou.tools.base import Access
from zizou.tools.read_only_command import reads_only_inside


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("A = 1\n")
    (root / "b.py").write_text("B = 2\n")
    (root / ".env").write_text("TOKEN=x\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "credentials").write_text("secret\n")
    (root / "docs").symlink_to(outside, target_is_directory=True)
    (root / "config.txt").symlink_to(".env")
    (root / "alias.py").symlink_to("b.py")
    return root


@pytest.mark.parametrize(
    "command",
    [
        "ls",
        "ls -la",
        "ls -la src",
        "pwd",
        "wc -l *.py",
        "wc -l src/*.py b.py",
        "cat b.py | head -n 5",
        "cat alias.py",
        "grep -n 'A =' src/a.py",
        "head -c 100 b.py 2>/dev/null",
        "wc -l < b.py",
        "du -sh src",
        "diff b.py src/a.py || true",
        "which python3",
    ],
)
def test_reads_inside_the_project(tree: Path, command: str) -> None:
    assert reads_only_inside(tree, command)


@pytest.mark.parametrize(
    "command",
    [
        "cat /etc/passwd",  # outside the project
        "cat ../outside/credentials",
        "cat docs/credentials",  # through a link the repository ships
        "ls docs",
        "cat docs/*",
        "cat config.txt",  # a link to .env
        "cat ~/.ssh/id_rsa",
        "cat $HOME/.aws/credentials",
        "wc -l < /etc/shadow",
        "grep --file=/etc/passwd x b.py",
        "ls > listing.txt",  # writes
        "FOO=1 ls",
        "rm b.py",
        "git status",  # git runs what the repository's config says
        "find . -name x",
        "sort -o b.py b.py",
        "ls; rm -rf src",
        "cat b.py | sh",
        "echo $(cat /etc/passwd)",
        "ls {src,docs}",
    ],
)
def test_anything_else_is_not_read_only(tree: Path, command: str) -> None:
    assert not reads_only_inside(tree, command)


def test_a_read_only_command_is_allowed_without_rules_even_without_a_sandbox() -> None:
    access = Access(kind="exec", command="ls -la", read_only=True)
    for sandbox in ("on", "off", "missing"):
        decision = decide("run_bash", access, Rules(sandbox=sandbox))  # type: ignore[arg-type]
        assert decision.verdict == "allow" and decision.reason == READ_ONLY_REASON
        assert decision.by == "read-only"


def test_naming_a_protected_path_still_asks_even_when_read_only() -> None:
    access = Access(kind="exec", command="ls .git", read_only=True)
    decision = decide("run_bash", access, Rules())
    assert decision.verdict == "ask" and decision.protected
