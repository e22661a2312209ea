"""The layering rules of ARCHITECTURE.md, checked on the source and on a live import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "zizou"
CORE_PACKAGES = ("core", "tools", "repomap", "sessions", "trace")
FORBIDDEN = ("textual", "zizou.ui", "litellm")


def _imports(path: Path, top_level_only: bool) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    names: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def _modules(*subpackages: str) -> list[Path]:
    return [p for sub in subpackages for p in sorted((PACKAGE / sub).rglob("*.py"))]


@pytest.mark.parametrize("path", _modules(*CORE_PACKAGES), ids=lambda p: p.name)
def test_core_never_imports_ui_or_litellm(path: Path) -> None:
    bad = [
        name
        for name in _imports(path, top_level_only=False)
        if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)
    ]
    assert bad == [], f"{path} imports {bad}"


@pytest.mark.parametrize("path", _modules("providers"), ids=lambda p: p.name)
def test_providers_import_litellm_lazily(path: Path) -> None:
    top = _imports(path, top_level_only=True)
    assert not [n for n in top if n.split(".")[0] == "litellm"], f"{path} imports litellm eagerly"


def test_headless_path_imports_neither_litellm_nor_textual() -> None:
    code = (
        "import sys, zizou.cli, zizou.headless, zizou.runtime, zizou.core.loop, zizou.providers;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'textual')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
