"""Fixtures for the file tools: a project root with a secret file just outside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.tools.base import ToolContext

SECRET = "TOP-SECRET-OUTSIDE-CONTENT"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n")
    return project


@pytest.fixture
def outside(root: Path) -> Path:
    return root.parent / "outside"


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(root=root)


@pytest.fixture
def escaping(root: Path) -> list[str]:
    """Paths that all lead to the secret file outside `root` (the links are created here)."""
    secret = root.parent / "outside" / "secret.txt"
    (root / "link_to_secret").symlink_to(secret)
    (root / "link_to_outside_dir").symlink_to(secret.parent, target_is_directory=True)
    return [
        "../outside/secret.txt",
        str(secret),
        "link_to_secret",
        "link_to_outside_dir/secret.txt",
        "sub/../../outside/secret.txt",
    ]
