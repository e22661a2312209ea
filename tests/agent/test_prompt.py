"""The prompt reads AGENTS.md / ZIZOU.md and writes `.zizou/compiled/` without following a
symlink the repository ships, and writes the compiled copy redacted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from zizou.agent.prompt import PromptBuilder
from zizou.contracts.state import SessionState
from zizou.contracts.windows import WHOLE_FILE
from zizou.tools import default_registry

SECRET = "OUTSIDE-SECRET-LINE"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET + "\n")
    return project


@pytest.fixture
def outside(root: Path) -> Path:
    return root.parent / "outside"


def builder(
    root: Path,
    *,
    write: bool = False,
    workspace: SessionState | None = None,
    redact: Callable[[str], str] | None = None,
) -> PromptBuilder:
    return PromptBuilder(
        root,
        default_registry(),
        workspace or SessionState(),
        write_compiled=write,
        map_tokens=0,
        redact=redact,
    )


def session_context(root: Path) -> str:
    compiled = builder(root).render()
    return next(s.text for s in compiled.sections if s.name == "SESSION CONTEXT")


def test_agents_md_linked_outside_is_skipped_with_a_note(root: Path, outside: Path) -> None:
    (root / "AGENTS.md").symlink_to(outside / "passwd")
    text = session_context(root)
    assert SECRET not in text
    assert "Project instructions" not in text
    assert "AGENTS.md skipped" in text and "outside the project" in text


def test_zizou_md_is_read_when_agents_md_is_skipped(root: Path, outside: Path) -> None:
    (root / "AGENTS.md").symlink_to(outside / "passwd")
    (root / "ZIZOU.md").write_text("Use tabs.\n")
    text = session_context(root)
    assert "Project instructions from ZIZOU.md:\nUse tabs." in text
    assert SECRET not in text


def test_agents_md_linked_inside_the_project_is_read(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "agents.md").write_text("Run make test.\n")
    (root / "AGENTS.md").symlink_to("docs/agents.md")
    assert "Project instructions from AGENTS.md:\nRun make test." in session_context(root)


def test_a_long_agents_md_is_truncated(root: Path) -> None:
    (root / "AGENTS.md").write_text("x" * 50_000)
    text = session_context(root)
    assert "[... AGENTS.md truncated ...]" in text and "x" * 20_001 not in text


def test_a_symlinked_zizou_dir_is_never_written_into(root: Path, outside: Path) -> None:
    (root / ".zizou").symlink_to(outside, target_is_directory=True)
    before = sorted(p.name for p in outside.iterdir())
    builder(root, write=True).render()  # no error: the copy is just not written
    assert sorted(p.name for p in outside.iterdir()) == before


def test_a_symlinked_compiled_dir_is_never_written_into(root: Path, outside: Path) -> None:
    (root / ".zizou").mkdir()
    (root / ".zizou" / "compiled").symlink_to(outside, target_is_directory=True)
    builder(root, write=True).render()
    assert sorted(p.name for p in outside.iterdir()) == ["passwd"]


def test_the_compiled_copy_is_redacted_and_the_model_still_gets_the_text(root: Path) -> None:
    (root / "notes.txt").write_text("token sk-live-123\n")
    workspace = SessionState()
    workspace.open_window("notes.txt", WHOLE_FILE)
    prompt = builder(
        root, write=True, workspace=workspace, redact=lambda t: t.replace("sk-live-123", "[KEY]")
    )
    text = prompt.render().text
    assert "sk-live-123" in text
    written = (root / ".zizou" / "compiled" / "prompt.md").read_text()
    assert "sk-live-123" not in written and "[KEY]" in written
    assert (root / ".zizou" / ".gitignore").read_text() == "*\n"
