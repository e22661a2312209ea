"""The app's shape, checked on the source: the app is imported only by the launcher, the UI's
modules import one another without circles, and the controllers never hold the app (they are
handed widgets and a `Host`, and post messages up)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

UI = Path(__file__).resolve().parents[2] / "zizou" / "ui"
APP = "zizou.ui.app"
REACH = re.compile(r"\bself\.app\b")


def _name(path: Path) -> str:
    parts = path.relative_to(UI.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _graph() -> dict[str, set[str]]:
    """Each UI module -> the UI modules it imports anywhere (lazy and type-only imports too)."""
    modules = {_name(p): p for p in UI.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        graph[module] = (names & modules.keys()) - {module}
    return graph


def test_only_the_launcher_imports_the_app() -> None:
    importers = sorted(module for module, targets in _graph().items() if APP in targets)
    assert importers == ["zizou.ui.launch"]


def test_no_import_circle_among_the_ui_modules() -> None:
    graph = _graph()
    circles: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, trail: list[str]) -> None:
        for target in sorted(graph[module]):
            if target in trail:
                circles.append([*trail[trail.index(target) :], target])
            elif target not in done:
                visit(target, [*trail, target])
        done.add(module)

    for module in sorted(graph):
        visit(module, [module])
    assert circles == []


def test_controllers_never_reach_into_the_app() -> None:
    controllers = [p for p in UI.glob("*.py") if p.name not in ("app.py", "launch.py")]
    reaching = [p.name for p in controllers if REACH.search(p.read_text(encoding="utf-8"))]
    assert reaching == []


FRONT_ENDS = [UI, UI.parent / "headless.py", UI.parent / "acp", UI.parent / "commands"]
REACH_IN = re.compile(r"\b(?:kernel|session)\.(?:agent|ctx)\b")


def test_the_front_ends_reach_a_session_only_through_its_operations() -> None:
    """No front end reaches into a session's agent or tool context: what it does to a session
    is a `Session` operation (zizou/session/kernel.py), the same for all of them."""
    files = [
        p for place in FRONT_ENDS for p in ([place] if place.is_file() else place.rglob("*.py"))
    ]
    found = [
        f"{path.relative_to(UI.parent.parent)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if REACH_IN.search(line)
    ]
    assert found == []
