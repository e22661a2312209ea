"""`.claude/agents/*.md` and `.opencode/agent/*.md` load as text-in, text-out decks beside
zizou's own, which win a clash of names."""

from __future__ import annotations

from pathlib import Path

from zizou.decks.loader import load_decks
from zizou.decks.spec import STRING_SCHEMA


def test_agent_files_load_as_decks_and_zizou_decks_win(project: Path) -> None:
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "reviewer.md").write_text(
        "---\ndescription: Reviews a diff.\ntools: Read, Edit, LS\nmodel: inherit\n---\nReview.\n"
    )
    (project / ".opencode" / "agent").mkdir(parents=True)
    (project / ".opencode" / "agent" / "docs.md").write_text(
        "---\ndescription: Writes docs.\n---\nWrite docs.\n"
    )
    (project / ".opencode" / "agent" / "nodesc.md").write_text("Just a body.\n")
    (project / ".zizou" / "decks").mkdir(parents=True)
    (project / ".zizou" / "decks" / "docs.deck.md").write_text(
        "---\ndescription: zizou's docs deck.\n---\nMine.\n"
    )
    found = load_decks(project, None)
    reviewer = found.decks["reviewer"]
    assert (reviewer.input_schema, reviewer.output_schema) == (STRING_SCHEMA, STRING_SCHEMA)
    assert reviewer.tools == ("read_file", "edit_file", "list_dir") and not reviewer.read_only
    assert reviewer.model is None and reviewer.body == "Review."
    assert reviewer in found.tools()
    assert found.decks["docs"].description == "zizou's docs deck."
    assert ".opencode/agent/docs.md: the deck docs is zizou's own, which wins" in found.warnings
    assert any(w.startswith(".opencode/agent/nodesc.md: no description") for w in found.warnings)
