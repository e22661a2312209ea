"""Instructions on demand: sources and overrides, front matter, summaries, limits, lookup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zizou.contracts.instructions import (
    BODY_MAX_CHARS,
    BUILTIN_DIR,
    CATALOGUE_INTRO,
    SUMMARY_MAX_CHARS,
    InstructionSet,
    first_sentence,
    normalise_name,
    parse,
    split_front_matter,
)

BUILTINS = (
    "debug-failing-test",
    "git-commit",
    "refactor-safely",
    "write-deck",
    "write-hook",
    "write-tests",
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("ZIZOU_HOME", str(home))
    return home


@pytest.fixture
def project(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def doc(name: str, description: str, body: str = "Do the thing.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def only(items: InstructionSet, source: str) -> list[str]:
    return [item.name for item in items if item.source == source]


# Sources and overrides.


def test_builtins_all_load_with_short_summaries_and_bodies(project: Path) -> None:
    items = InstructionSet.load(project)
    assert items.names() == list(BUILTINS)
    assert items.warnings == ()
    for item in items:
        assert item.source == "builtin"
        assert 20 < len(item.summary) <= SUMMARY_MAX_CHARS
        lines = item.body.count("\n") + 1
        assert 35 <= lines <= 120, (item.name, lines)
        assert item.path.parent == BUILTIN_DIR


def test_every_source_is_read_and_later_ones_override_by_name(project: Path, home: Path) -> None:
    write(home / "instructions" / "git-commit.md", doc("git-commit", "The user's way."))
    write(home / "instructions" / "mine.md", "Mine. More text.\n")
    write(project / ".claude/skills/deploy/SKILL.md", doc("deploy", "Claude's deploy."))
    write(project / ".agents/skills/deploy/SKILL.md", doc("deploy", "Agents' deploy."))
    write(project / ".zizou/instructions/release.md", "Release it.\n")
    write(project / ".zizou/instructions/deploy/INSTRUCTIONS.md", "Our deploy.\n")

    items = InstructionSet.load(project)

    assert items.warnings == ()
    assert items.get("git-commit").summary == "The user's way."  # type: ignore[union-attr]
    assert items.get("git-commit").source == "user"  # type: ignore[union-attr]
    assert items.get("mine").summary == "Mine."  # type: ignore[union-attr]
    deploy = items.get("deploy")
    assert deploy is not None
    assert (deploy.summary, deploy.source) == ("Our deploy.", "project")
    assert deploy.path == project / ".zizou/instructions/deploy/INSTRUCTIONS.md"
    assert only(items, "project") == ["deploy", "release"]
    assert items.notes == (
        f"instructions 'git-commit' from {home / 'instructions' / 'git-commit.md'} override "
        "the ones from the builtins",
        "instructions 'deploy' from .agents/skills/deploy/SKILL.md override the ones from "
        ".claude/skills/deploy/SKILL.md",
        "instructions 'deploy' from .zizou/instructions/deploy/INSTRUCTIONS.md override the "
        "ones from .agents/skills/deploy/SKILL.md",
    )


def test_skill_takes_its_name_from_its_directory(project: Path) -> None:
    write(
        project / ".claude/skills/PDF_Tools/SKILL.md",
        "---\ndescription: Fill PDF forms.\nallowed-tools: Read, Bash\nmetadata:\n"
        "  author: someone\n  version: '2'\n---\n# PDF\n\nUse pypdf.\n",
    )
    write(project / ".claude/skills/notes.md", "Not a skill: skills are directories.\n")
    write(project / ".claude/skills/empty/README.md", "No SKILL.md here.\n")

    items = InstructionSet.load(project)

    skill = items.get("pdf-tools")
    assert skill is not None
    assert (skill.summary, skill.source) == ("Fill PDF forms.", ".claude/skills")
    assert skill.body == "# PDF\n\nUse pypdf."
    assert only(items, ".claude/skills") == ["pdf-tools"]
    assert items.warnings == ()


def test_two_files_with_one_name_in_one_place_keep_the_first(project: Path) -> None:
    write(project / ".zizou/instructions/a.md", doc("shared", "From a."))
    write(project / ".zizou/instructions/b.md", doc("shared", "From b."))

    items = InstructionSet.load(project)

    assert items.get("shared").summary == "From a."  # type: ignore[union-attr]
    assert items.warnings == (
        ".zizou/instructions/b.md skipped: .zizou/instructions/a.md already defines "
        "instructions 'shared'",
    )


# Untrusted project files.


def test_a_symlink_out_of_the_project_is_skipped_with_a_warning(
    project: Path, tmp_path: Path
) -> None:
    outside = write(tmp_path / "secret.md", doc("secret", "Leaked."))
    write(project / "docs/inside.md", doc("inside", "Linked from inside."))
    folder = project / ".zizou/instructions"
    folder.mkdir(parents=True)
    os.symlink(outside, folder / "secret.md")
    os.symlink("../../docs/inside.md", folder / "inside.md")
    skills = project / ".claude/skills"
    skills.mkdir(parents=True)
    os.symlink(outside.parent, skills / "outdir")

    items = InstructionSet.load(project)

    assert "secret" not in items.names()
    assert items.get("inside").summary == "Linked from inside."  # type: ignore[union-attr]
    assert len(items.warnings) == 2
    assert items.warnings[0].startswith(".claude/skills/outdir skipped: ")
    assert items.warnings[1].startswith(".zizou/instructions/secret.md skipped: ")
    assert all("outside the project" in warning for warning in items.warnings)


def test_a_symlinked_project_folder_leading_out_is_skipped(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "x" / "SKILL.md", doc("x", "Outside."))
    (project / ".agents").mkdir()
    os.symlink(elsewhere, project / ".agents/skills")

    items = InstructionSet.load(project)

    assert "x" not in items.names()
    assert len(items.warnings) == 1
    assert items.warnings[0].startswith(".agents/skills skipped: ")


def test_symlinks_inside_the_project_are_followed(project: Path) -> None:
    write(project / "docs/skill.md", doc("ignored-name-is-fine", "Shared skill."))
    skill = project / ".claude/skills/shared"
    skill.mkdir(parents=True)
    os.symlink("../../../docs/skill.md", skill / "SKILL.md")
    (project / ".agents").mkdir()
    os.symlink("../.claude/skills", project / ".agents/skills")

    items = InstructionSet.load(project)

    assert items.warnings == ()
    assert only(items, ".agents/skills") == ["ignored-name-is-fine"]
    assert items.get("ignored-name-is-fine").path == project / ".agents/skills/shared/SKILL.md"  # type: ignore[union-attr]


def test_a_fifo_is_skipped_without_hanging(project: Path) -> None:
    folder = project / ".zizou/instructions"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.md")

    items = InstructionSet.load(project)

    assert items.warnings == (".zizou/instructions/pipe.md skipped: it is not a regular file",)


def test_binary_undecodable_and_unnamable_files_are_skipped(project: Path) -> None:
    folder = project / ".zizou/instructions"
    folder.mkdir(parents=True)
    (folder / "bin.md").write_bytes(b"Text\x00with a NUL")
    (folder / "latin.md").write_bytes(b"caf\xe9 au lait.")
    write(folder / "odd.md", doc("what?!", "Bad name."))
    write(folder / "fine.md", "Fine.\n")

    items = InstructionSet.load(project)

    assert only(items, "project") == ["fine"]
    assert items.warnings == (
        ".zizou/instructions/bin.md skipped: it is a binary file",
        ".zizou/instructions/latin.md skipped: it is not UTF-8 text",
        ".zizou/instructions/odd.md skipped: its name 'what?!' cannot be made of lowercase "
        "letters, digits and hyphens (at most 64 characters); rename it",
    )


def test_a_long_body_is_cut_with_a_note(project: Path) -> None:
    paragraph = "Step. " * 5_000  # 30,000 characters
    write(project / ".zizou/instructions/long.md", doc("long", "Long one.", paragraph))

    body = InstructionSet.load(project).get("long").body  # type: ignore[union-attr]

    assert len(body) < BODY_MAX_CHARS + 100
    assert body.endswith("[... long cut at 20,000 characters; the rest is not shown ...]")


def test_a_file_over_the_read_cap_is_read_only_in_part(project: Path) -> None:
    write(project / ".zizou/instructions/huge.md", "Huge. " + "é" * 150_000)

    item = InstructionSet.load(project).get("huge")

    assert item is not None
    assert item.summary == "Huge."
    assert "cut at 20,000 characters" in item.body


# Front matter, names and summaries.


def test_no_front_matter_means_the_whole_text_is_the_body() -> None:
    assert split_front_matter("# Title\n\nText.\n") == ({}, "# Title\n\nText.\n")
    assert split_front_matter("---\nname: x\nno closing line\n") == (
        {},
        "---\nname: x\nno closing line\n",
    )


def test_front_matter_values_quoted_plain_and_block() -> None:
    text = (
        "---\n"
        "# a comment\n"
        'name: "My Skill"\n'
        "description: 'It''s quoted: with a colon'\n"
        "sticky: true   # pinned\n"
        "plain: value # comment\n"
        'escaped: "tab\\there \\u00e9"\n'
        "folded: >-\n"
        "  one\n"
        "  two\n"
        "literal: |\n"
        "  line 1\n"
        "    indented\n"
        "tools:\n"
        "  - read\n"
        "Upper: kept\n"
        "---\n"
        "Body.\n"
    )
    fields, body = split_front_matter(text)
    assert fields == {
        "name": "My Skill",
        "description": "It's quoted: with a colon",
        "sticky": "true",
        "plain": "value",
        "escaped": "tab\there é",
        "folded": "one two",
        "literal": "line 1\n  indented",
        "tools": "- read",
        "upper": "kept",
    }
    assert body == "Body.\n"


def test_parse_reads_name_description_and_sticky() -> None:
    data = (
        b'\xef\xbb\xbf---\r\nname: "Code Review"\r\ndescription: Review.\r\nsticky: yes\r\n---\r\n'
    )
    item = parse(data + b"Body text.\r\n", "file-stem", "project", Path("x.md"))
    assert not isinstance(item, str)
    assert (item.name, item.summary, item.sticky, item.body) == (
        "code-review",
        "Review.",
        True,
        "Body text.",
    )
    plain = parse(b"No front matter. Second.", "Stem_Name", "user", Path("Stem_Name.md"))
    assert not isinstance(plain, str)
    assert (plain.name, plain.summary, plain.sticky) == ("stem-name", "No front matter.", False)


def test_a_long_description_is_cut_to_the_summary_limit() -> None:
    description = "word " * 100
    item = parse(doc("x", description).encode(), "x", "user", Path("x.md"))
    assert not isinstance(item, str)
    assert len(item.summary) <= SUMMARY_MAX_CHARS
    assert item.summary.endswith("word…")


@pytest.mark.parametrize(
    ("raw", "name"),
    [
        ("git-commit", "git-commit"),
        ("Write Tests", "write-tests"),
        ("  under_score__name ", "under-score-name"),
        ("-edge-", "edge"),
        ("v2", "v2"),
        ("dots.in.name", None),
        ("café", None),
        ("", None),
        ("---", None),
        ("x" * 65, None),
    ],
)
def test_normalise_name(raw: str, name: str | None) -> None:
    assert normalise_name(raw) == name


@pytest.mark.parametrize(
    ("body", "sentence"),
    [
        ("First one. Second one.", "First one."),
        ("# Title\n\nThe intro, e.g. this. And more.", "The intro, e.g. this."),
        ("## Heading\n```\ncode.\n```\nAfter code! Yes.", "After code!"),
        ("- a list item is prose\n- second", "a list item is prose second"),
        ("Spans\ntwo lines. Then.", "Spans two lines."),
        ("# Only a heading\n", "Only a heading"),
        ("**Bold** start? Rest.", "Bold start?"),
        ("No end mark", "No end mark"),
        ("", ""),
    ],
)
def test_first_sentence(body: str, sentence: str) -> None:
    assert first_sentence(body) == sentence


# The catalogue and lookup.


def many(count: int) -> InstructionSet:
    items = []
    for n in range(count):
        item = parse(doc(f"task-{n:02d}", f"Task {n}.").encode(), "x", "project", Path("x.md"))
        assert not isinstance(item, str)
        items.append(item)
    return InstructionSet(items)


def test_catalogue_lists_at_most_fifty_then_counts_the_rest() -> None:
    text = many(60).catalogue()
    lines = text.splitlines()
    assert lines[0] == CATALOGUE_INTRO
    assert lines[1] == "- task-00: Task 0."
    assert lines[50] == "- task-49: Task 49."
    assert lines[51] == "- ... and 10 more: call get_instructions('?') to list them all."
    assert len(lines) == 52


def test_catalogue_keeps_within_four_thousand_characters() -> None:
    items = []
    for n in range(40):
        item = parse(doc(f"t{n}", "long " * 39).encode(), "x", "project", Path("x.md"))
        assert not isinstance(item, str)
        items.append(item)
    text = InstructionSet(items).catalogue()
    assert len(text) <= 4_000
    assert text.endswith("more: call get_instructions('?') to list them all.")


def test_catalogue_of_nothing_is_empty() -> None:
    assert InstructionSet().catalogue() == ""


def test_lookup_known_question_mark_and_misspelt(project: Path) -> None:
    items = InstructionSet.load(project)

    text = items.lookup("git-commit")
    assert text.startswith("# Instructions: git-commit\n\n# Committing with git\n")
    assert items.lookup("Git Commit") == text

    listing = items.lookup(" ? ")
    assert listing.splitlines()[0].startswith("All 6 instructions")
    assert f"- git-commit: {items.get('git-commit').summary}" in listing  # type: ignore[union-attr]

    error = items.lookup("git-comit")
    assert error.startswith("No instructions named 'git-comit'. Did you mean 'git-commit'?")
    assert "debug-failing-test, git-commit, refactor-safely" in error
    assert items.get("git-comit") is None
    assert items.nearest("refactor") == "refactor-safely"
    assert items.nearest("zzz") is None


def test_lookup_with_nothing_installed() -> None:
    assert InstructionSet().lookup("x") == "No instructions named 'x': none are installed."
    assert InstructionSet().lookup("?") == "No instructions are installed."


def test_a_skill_linked_to_a_secret_file_is_skipped_and_its_neighbours_kept(
    project: Path,
) -> None:
    (project / ".env").write_text("---\ndescription: TOKEN=hunter2\n---\nTOKEN=hunter2\n")
    skills = project / ".claude/skills"
    write(skills / "fine" / "SKILL.md", doc("fine", "A fine skill."))
    (skills / "leak").mkdir(parents=True)
    os.symlink("../../../.env", skills / "leak" / "SKILL.md")

    items = InstructionSet.load(project)

    assert "fine" in items.names()
    assert "leak" not in items.names()
    assert all("hunter2" not in item.summary for item in map(items.get, items.names()) if item)
    [warning] = items.warnings
    assert warning.startswith(".claude/skills/leak/SKILL.md skipped: ")
    assert "it links to .env" in warning
    assert "may hold secrets" in warning
