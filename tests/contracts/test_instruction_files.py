"""Instruction files and their `@path` imports: what is read, in which order, and what is
refused with a note."""

from __future__ import annotations

from pathlib import Path

from zizou.contracts.instruction_files import import_targets, nested_instructions, root_instructions


def labels(root: Path, home: Path) -> list[str]:
    return [f.label for f in root_instructions(root, home).files]


def test_imports_skip_code_mail_addresses_and_fenced_blocks() -> None:
    text = "See @docs/a.md and `@not/this.md`.\nMail me@example.com\n```\n@fenced.md\n```\n@b.md"
    assert import_targets(text) == [(1, "docs/a.md"), (6, "b.md")]


def test_user_files_come_first_then_the_projects(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "AGENTS.md").write_text("codex rules\n")
    root.mkdir()
    (root / "CLAUDE.local.md").write_text("mine\n")
    (root / "GEMINI.md").write_text("gemini\n")
    assert labels(root, home) == ["~/.codex/AGENTS.md", "GEMINI.md", "CLAUDE.local.md"]


def test_imports_nest_at_most_five_deep(tmp_path: Path) -> None:
    for n in range(8):
        (tmp_path / f"f{n}.md").write_text(f"level {n}\n@f{n + 1}.md\n")
    (tmp_path / "CLAUDE.md").write_text("@f0.md\n")
    reader = root_instructions(tmp_path, tmp_path / "none")
    assert [f.label for f in reader.files] == ["CLAUDE.md", *(f"f{n}.md" for n in range(5))]
    assert reader.notes == ["f4.md line 2: @f5.md refused: imports nest at most 5 deep"]


def test_a_project_file_may_not_import_from_the_home_folder(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("@~/.ssh/config\n@missing.md\n")
    reader = root_instructions(tmp_path, tmp_path / "none")
    assert reader.notes == [
        "AGENTS.md line 1: @~/.ssh/config refused: a project file imports only project files",
        "AGENTS.md line 2: @missing.md skipped: no such file",
    ]


def test_an_import_out_of_the_project_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (tmp_path / "outside.md").write_text("OUTSIDE\n")
    (root / "CLAUDE.md").write_text("@../outside.md\n")
    reader = root_instructions(root, tmp_path / "none")
    assert [f.label for f in reader.files] == ["CLAUDE.md"]
    assert reader.notes and reader.notes[0].startswith("../outside.md skipped")


def test_nested_files_apply_from_the_top_folder_down_and_never_twice(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root rules\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "AGENTS.md").write_text("a rules\n")
    (tmp_path / "a" / "b" / "CLAUDE.md").write_text("b rules\n")
    (tmp_path / "a" / "b" / "AGENTS.md").write_text("root rules\n")
    sent = root_instructions(tmp_path, tmp_path / "none")
    text = nested_instructions(tmp_path, ["a/b/x.py", "a/y.py"], sent)
    assert text.index("a rules") < text.index("b rules")
    assert "root rules" not in text
    assert "a/b/AGENTS.md has the same text as AGENTS.md: sent once" in text
    assert nested_instructions(tmp_path, ["top.py"], sent) == ""
