"""The user's saved "always allow" rules: in the user's config dir, one set per project."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from zizou.config.project_rules import (
    ignored_project_file,
    load_prefixes,
    remove_prefix,
    rules_path,
    save_prefix,
)
from zizou.errors import UsageError


@pytest.fixture
def project(tmp_path: Path, zizou_home: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def plant_project_rules(root: Path, *prefixes: str) -> None:
    """What a cloned repository could ship: the file older zizou versions read."""
    (root / ".zizou").mkdir(exist_ok=True)
    data = {"version": 1, "bash_prefixes": list(prefixes)}
    (root / ".zizou" / "permissions.json").write_text(json.dumps(data))


def test_rules_are_saved_listed_and_removed(project: Path, zizou_home: Path) -> None:
    assert load_prefixes(project) == []
    assert save_prefix(project, "pytest")
    assert not save_prefix(project, "pytest")
    assert save_prefix(project, "git status")
    assert load_prefixes(project) == ["pytest", "git status"]
    assert remove_prefix(project, "pytest")
    assert not remove_prefix(project, "pytest")
    assert load_prefixes(project) == ["git status"]
    assert rules_path(project) == zizou_home / "permissions.json"
    assert not (project / ".zizou").exists()  # nothing is written into the project


def test_the_file_is_private_and_keyed_by_the_real_path(
    project: Path, zizou_home: Path, tmp_path: Path
) -> None:
    link = tmp_path / "link"
    link.symlink_to(project, target_is_directory=True)
    save_prefix(link, "pytest")
    path = zizou_home / "permissions.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text())
    assert data == {
        "version": 2,
        "projects": {str(project.resolve()): {"bash_prefixes": ["pytest"]}},
    }
    assert load_prefixes(project) == ["pytest"]


def test_a_rule_survives_and_stays_with_its_project(project: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    save_prefix(project, "make test")
    save_prefix(other, "npm test")
    assert load_prefixes(project) == ["make test"]  # read back from the file, as a new run would
    assert load_prefixes(other) == ["npm test"]
    assert load_prefixes(project / "sub") == []  # a subdirectory is another project
    assert remove_prefix(other, "npm test")
    assert load_prefixes(project) == ["make test"]


def test_a_rules_file_shipped_in_the_project_approves_nothing(project: Path) -> None:
    plant_project_rules(project, "touch", "rm")
    assert load_prefixes(project) == []
    warning = ignored_project_file(project)
    assert warning is not None and ".zizou/permissions.json" in warning
    assert "ignored" in warning and str(rules_path()) in warning
    assert ignored_project_file(project.parent) is None


def test_a_broken_file_names_the_fix(project: Path, zizou_home: Path) -> None:
    path = zizou_home / "permissions.json"
    path.write_text("{not json")
    with pytest.raises(UsageError, match="fix or remove"):
        load_prefixes(project)
    path.write_text('{"version": 2, "projects": {"/x": {"bash_prefixes": "pytest"}}}')
    with pytest.raises(UsageError, match="not a valid rules file"):
        load_prefixes(project)
    path.write_text('{"version": 1, "bash_prefixes": ["pytest"]}')
    with pytest.raises(UsageError, match="not a valid rules file"):
        save_prefix(project, "pytest")


def test_mcp_tool_rules_are_saved_and_removed_beside_the_commands(
    project: Path, zizou_home: Path
) -> None:
    from zizou.config.project_rules import load_tool_rules, remove_tool_rule, save_tool_rule

    assert save_tool_rule(project, "mcp__git__git_status")
    assert not save_tool_rule(project, "mcp__git__git_status")
    save_prefix(project, "pytest")
    assert load_tool_rules(project) == ["mcp__git__git_status"]
    assert remove_tool_rule(project, "mcp__git__git_status")
    assert load_tool_rules(project) == [] and load_prefixes(project) == ["pytest"]
    saved = json.loads((zizou_home / "permissions.json").read_text())
    assert saved["projects"][str(project.resolve())] == {"bash_prefixes": ["pytest"]}
