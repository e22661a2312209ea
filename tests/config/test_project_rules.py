"""The project's saved "always allow" rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from zizou.config.project_rules import load_prefixes, remove_prefix, rules_path, save_prefix
from zizou.errors import UsageError


def test_rules_are_saved_listed_and_removed(tmp_path: Path) -> None:
    assert load_prefixes(tmp_path) == []
    assert save_prefix(tmp_path, "pytest")
    assert not save_prefix(tmp_path, "pytest")
    assert save_prefix(tmp_path, "git status")
    assert load_prefixes(tmp_path) == ["pytest", "git status"]
    assert remove_prefix(tmp_path, "pytest")
    assert not remove_prefix(tmp_path, "pytest")
    assert load_prefixes(tmp_path) == ["git status"]
    assert (tmp_path / ".zizou" / ".gitignore").exists()


def test_a_broken_file_names_the_fix(tmp_path: Path) -> None:
    path = rules_path(tmp_path)
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(UsageError, match="fix or remove"):
        load_prefixes(tmp_path)
    path.write_text('{"bash_prefixes": "pytest"}')
    with pytest.raises(UsageError, match="not a valid rules file"):
        load_prefixes(tmp_path)
