"""The map's files: git's list (or a .gitignore-honouring walk), minus what is not code."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from zizou.repomap.files import MAX_SOURCE_BYTES, list_project_files


def _write(root: Path, files: dict[str, bytes | str]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            path.write_text(content)
        else:
            path.write_bytes(content)


LAYOUT: dict[str, bytes | str] = {
    "src/main.py": "def main(): pass\n",
    "src/vendor/lib.py": "def vendored(): pass\n",
    "third_party/x.go": "package x\n",
    "node_modules/m/index.js": "x\n",
    "build/out.py": "x = 1\n",
    "logo.png": b"\x89PNG\0\0",
    "bundle.min.js": "var a=1\n",
    "poetry.lock": "x\n",
    ".env": "SECRET=1\n",
    "zizou-debug.log": "log\n",
    "huge.py": "x = 1\n" * (MAX_SOURCE_BYTES // 6 + 10),
    "README.md": "# hi\n",
    "ignored.py": "x = 1\n",
    ".gitignore": "ignored.py\n",
}


def test_a_walk_honours_gitignore_and_skips_what_is_not_code(tmp_path: Path) -> None:
    _write(tmp_path, LAYOUT)
    files = list_project_files(tmp_path)
    assert [f.path for f in files.sources] == ["src/main.py"]
    assert files.others == (".gitignore", "README.md")
    assert files.sources[0].language == "python" and files.sources[0].size > 0


@pytest.mark.usefixtures("git_installed")
def test_git_lists_tracked_and_untracked_files_but_not_ignored_ones(tmp_path: Path) -> None:
    _write(tmp_path, LAYOUT)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "src/main.py"], cwd=tmp_path, check=True)
    _write(tmp_path, {"src/new.py": "def new(): pass\n"})  # untracked, not ignored
    files = list_project_files(tmp_path)
    assert [f.path for f in files.sources] == ["src/main.py", "src/new.py"]


def test_bundled_stub_trees_are_vendored(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "mypy/typeshed/stdlib/builtins.pyi": "class int: ...\n",
            "mypy/typeshed/stubs/six/six.pyi": "def b(s: str) -> bytes: ...\n",
            "mypy/nodes.py": "class Node: ...\n",
            "stubs/own.pyi": "def own() -> None: ...\n",
        },
    )
    files = list_project_files(tmp_path)
    assert [f.path for f in files.sources] == ["mypy/nodes.py", "stubs/own.pyi"]
    assert files.skipped == 2
