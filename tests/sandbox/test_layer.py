"""A command's copy-on-write layer, run for real (bubblewrap inside an overlay): what the command
did reaches the project only when the layer is applied, and applying it says exactly what it
created, changed and deleted; what changed in the project meanwhile is never overwritten."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from zizou.sandbox import Sandbox, detect
from zizou.sandbox.layer import Layer, layers_dir, left_behind
from zizou.sandbox.layer_apply import Applied, Conflict, apply_layer

LIMIT = 1 << 20
pytestmark = pytest.mark.usefixtures("sandbox_on", "zizou_home")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "src" / "old").mkdir(parents=True)
    (project / "src" / "main.py").write_text("print('x')\n")
    (project / "src" / "old" / "gone.py").write_text("gone\n")
    (project / "notes.txt").write_text("notes\n")
    (project / "node_modules" / "dep").mkdir(parents=True)
    (project / "node_modules" / "dep" / "index.js").write_text("old\n")
    return project


def run(root: Path, command: str, layer: Layer | None = None) -> Layer:
    """`command` in the sandbox over `root`, in `layer` (a new one by default)."""
    sandbox = Sandbox(root, detect())
    assert sandbox.layer_problem() is None
    layer = layer or sandbox.layer()
    assert layer is not None
    argv = [*sandbox.prefix(layer=layer), "bash", "-c", command]
    subprocess.run(argv, cwd=root, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    return layer


def changes(applied: Applied) -> dict[str, str]:
    return {item.path: item.change for item in applied.files}


def test_the_project_changes_only_when_the_layer_is_applied(root: Path) -> None:
    script = (
        "echo y > src/main.py; rm -r src/old; echo new > src/new.py; mv notes.txt kept.txt; "
        "rm -rf node_modules/dep; echo n > node_modules/n.js; ln -s src link"
    )
    layer = run(root, script)
    assert (root / "notes.txt").exists() and not (root / "src" / "new.py").exists()

    applied = apply_layer(layer, LIMIT)
    assert changes(applied) == {
        "src/main.py": "changed",
        "src/old/gone.py": "deleted",
        "src/new.py": "created",
        "notes.txt": "deleted",
        "kept.txt": "created",
        "link": "created",
    }
    by_path = {item.path: item for item in applied.files}
    assert by_path["src/main.py"].before == b"print('x')\n"
    assert by_path["notes.txt"].before == b"notes\n" and by_path["kept.txt"].before is None
    assert not by_path["link"].regular
    assert applied.skipped == [("node_modules/", "changed")]
    assert applied.conflicts == [] and applied.failed == []
    assert (root / "src" / "main.py").read_text() == "y\n"
    assert not (root / "src" / "old").exists() and (root / "kept.txt").read_text() == "notes\n"
    assert sorted(p.name for p in (root / "node_modules").iterdir()) == ["n.js"]
    assert not layer.directory.exists()


def test_a_directory_deleted_and_made_again_loses_what_the_command_did_not_put_back(
    root: Path,
) -> None:
    applied = apply_layer(run(root, "rm -rf src && mkdir src && echo z > src/z.py"), LIMIT)
    assert changes(applied) == {
        "src/main.py": "deleted",
        "src/old/gone.py": "deleted",
        "src/z.py": "created",
    }
    assert sorted(p.name for p in (root / "src").iterdir()) == ["z.py"]


def test_a_file_changed_meanwhile_keeps_the_projects_version_and_the_commands_aside(
    root: Path,
) -> None:
    layer = run(root, "echo by the command > notes.txt; rm src/main.py; echo a > added.txt")
    (root / "notes.txt").write_text("by the user\n")  # while the command ran, as it were
    (root / "src" / "main.py").write_text("edited by the user\n")

    applied = apply_layer(layer, LIMIT)
    aside = f".zizou/conflicts/{layer.directory.name}/notes.txt"
    assert applied.conflicts == [Conflict("notes.txt", aside), Conflict("src/main.py", None)]
    assert changes(applied) == {"added.txt": "created"}
    assert (root / "notes.txt").read_text() == "by the user\n"
    assert (root / aside).read_text() == "by the command\n"
    assert (root / "src" / "main.py").read_text() == "edited by the user\n"


def test_a_file_too_large_is_applied_without_its_bytes_before(root: Path) -> None:
    (root / "big.bin").write_bytes(b"x" * 100)
    applied = apply_layer(run(root, "echo small > big.bin"), limit=10)
    [item] = applied.files
    assert item.too_large and item.before is None and item.mode is not None


def test_a_layer_its_zizou_left_is_applied_by_the_next_one(root: Path) -> None:
    layer = run(root, "echo left > left.txt")
    dead = layer.directory.with_name(f"999999999-{layer.directory.name.split('-', 1)[1]}")
    layer.directory.rename(dead)  # as if its zizou had been killed
    [found] = left_behind(root, layers_dir())
    assert left_behind(root, layers_dir()) == []  # claimed: no other zizou applies it too
    assert found.started_ns == layer.started_ns
    assert changes(apply_layer(found, LIMIT)) == {"left.txt": "created"}
    assert (root / "left.txt").read_text() == "left\n"


def test_a_running_zizous_layer_is_left_alone(root: Path) -> None:
    layer = run(root, "echo mine > mine.txt")
    assert layer.directory.name.startswith(f"{os.getpid()}-")
    assert left_behind(root, layers_dir()) == []
    layer.remove()
