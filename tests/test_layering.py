"""The layering rules of ARCHITECTURE.md, checked on the source and on a live import."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "zizou"
CORE_PACKAGES = ("contracts", "agent", "tools", "repomap", "sessions", "trace")
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
        "import sys, zizou.cli, zizou.headless, zizou.session, zizou.agent.loop, zizou.providers;"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('litellm', 'textual')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# The layers, lowest first: a module may import its own layer and those below, never above.
# A module is placed by the longest prefix listed: the folders are the layers.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "base",
        (
            "zizou",
            "errors",
            "env",
            "secret_files",
            "skipped_dirs",
            "redact",
            "known_secrets",
            "collector",
            "terminal_text",
            "plural",
        ),
    ),
    ("system", ("confined", "paths", "user_dirs", "git", "ignore", "sandbox", "process_groups")),
    ("contracts", ("contracts",)),
    ("services", ("providers", "repomap")),
    ("tools", ("tools", "checks")),
    ("agent", ("agent",)),
    ("hooks", ("hooks",)),
    ("decks", ("decks",)),
    ("mcp", ("mcp",)),
    ("records", ("sessions", "trace", "checkpoints")),
    ("config", ("config",)),
    ("session", ("session",)),
    ("front", ("ui", "cli", "start", "headless", "__main__", "launcher", "acp", "commands")),
)


def _module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer(module: str) -> tuple[int, str]:
    """(rank, unit) of a `zizou...` module: its layer's rank and the prefix that placed it."""
    inner = module.removeprefix("zizou").removeprefix(".") or "zizou"
    best: tuple[int, int, str] | None = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (inner == prefix or inner.startswith(prefix + ".")) and (
                best is None or len(prefix) > best[1]
            ):
                best = (rank, len(prefix), prefix)
    assert best is not None, f"{module} is in no layer: add it to LAYERS"
    return best[0], best[2]


def _zizou_imports(path: Path, package: Path, modules: set[str]) -> set[str]:
    """Every module of `package` that `path` imports, anywhere in it (lazy and type-only
    imports count). `from a import b` counts `a.b` when `b` is a module, and `a` only when
    something else is taken from it."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative: from the importing module's package
                base = _module_name(path, package).split(".")
                base = base[: len(base) - node.level + (path.name == "__init__.py")]
                module = ".".join([*base, module] if module else base)
            taken = {f"{module}.{alias.name}" for alias in node.names}
            names |= taken & modules
            if taken - modules:
                names.add(module)
    return names


def _graph(package: Path) -> dict[str, set[str]]:
    """module -> the modules of `package` it imports."""
    modules = {_module_name(p, package): p for p in package.rglob("*.py")}
    names = set(modules)
    return {m: _zizou_imports(p, package, names) & names - {m} for m, p in modules.items()}


def back_arrows(package: Path) -> list[str]:
    """Every import that runs up a layer, as `importer (layer) -> imported (layer)`."""
    found = []
    for module, targets in sorted(_graph(package).items()):
        for target in sorted(targets):
            mine, theirs = _layer(module)[0], _layer(target)[0]
            if theirs > mine:
                found.append(f"{module} ({LAYERS[mine][0]}) -> {target} ({LAYERS[theirs][0]})")
    return found


def circles(package: Path) -> list[list[str]]:
    """The import circles among units (the prefixes that place modules in layers)."""
    units: dict[str, set[str]] = {}
    for module, targets in _graph(package).items():
        unit = _layer(module)[1]
        units.setdefault(unit, set()).update(_layer(t)[1] for t in targets)
        units[unit].discard(unit)
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(unit: str, trail: list[str]) -> None:
        for target in sorted(units.get(unit, ())):
            if target in trail:
                found.append([*trail[trail.index(target) :], target])
            elif target not in done:
                visit(target, [*trail, target])
        done.add(unit)

    for unit in sorted(units):
        visit(unit, [unit])
    return found


def module_circles(package: Path) -> list[list[str]]:
    """The modules that import each other, directly or round a longer circle (each group of
    modules that reach one another, Tarjan's strongly connected components)."""
    graph = _graph(package)
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        order[module] = low[module] = len(order)
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if target not in order:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], order[target])
        if low[module] == order[module]:
            group = []
            while (member := stack.pop()) != module:
                group.append(member)
            if group:
                found.append(sorted([module, *group]))

    for module in sorted(graph):
        if module not in order:
            visit(module)
    return found


def test_every_import_points_down_the_layers() -> None:
    assert back_arrows(PACKAGE) == []


def test_no_circle_among_the_units() -> None:
    assert circles(PACKAGE) == []


def test_no_two_modules_import_each_other() -> None:
    assert module_circles(PACKAGE) == []


def test_the_checks_catch_a_back_arrow_and_a_circle(tmp_path: Path) -> None:
    package = tmp_path / "zizou"
    for name, text in {
        "__init__.py": "",
        "repomap/__init__.py": "",
        "repomap/files.py": "from zizou.tools import base\n",  # services -> tools: upward
        "tools/__init__.py": "",
        # and back, if only for the type checker: a circle
        "tools/base.py": (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..repomap import files\n"
        ),
        "ui/app.py": "import zizou.tools.base\n",  # downward: fine
    }.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text)
    assert back_arrows(package) == ["zizou.repomap.files (services) -> zizou.tools.base (tools)"]
    assert ["repomap", "tools", "repomap"] in circles(package)
    assert module_circles(package) == [["zizou.repomap.files", "zizou.tools.base"]]
