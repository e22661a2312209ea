"""Reading Claude Code's settings files: the user's, the project's and the local one, in that
order; a link out of the project, or a file that is not a JSON object, is named and left out."""

from __future__ import annotations

from pathlib import Path

from zizou.config.claude_settings import load_claude_settings


def test_the_three_files_load_in_order_and_a_bad_one_is_named_with_its_line(
    tmp_path: Path,
) -> None:
    home, root = tmp_path / "home", tmp_path / "project"
    (home / ".claude").mkdir(parents=True)
    (root / ".claude").mkdir(parents=True)
    (home / ".claude" / "settings.json").write_text('{"permissions": {}}')
    (root / ".claude" / "settings.json").write_text("[1, 2]")
    (root / ".claude" / "settings.local.json").write_text('{"hooks": {}}')
    found = load_claude_settings(root, home)
    assert [(f.label, f.origin, f.users_own) for f in found.files] == [
        ("~/.claude/settings.json", "user", True),
        (".claude/settings.local.json", "local", True),
    ]
    assert found.problems == [
        ".claude/settings.json line 1: not a JSON object; the file is not used"
    ]


def test_a_settings_file_linked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    outside = tmp_path / "elsewhere.json"
    outside.write_text('{"permissions": {"allow": ["Bash"]}}')
    (root / ".claude" / "settings.local.json").symlink_to(outside)
    found = load_claude_settings(root, tmp_path / "no-home")
    assert found.files == []
    assert found.problems[0].startswith(".claude/settings.local.json is not used:")
