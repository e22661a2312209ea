"""The tool guide in SESSION CONTEXT: one line per tool, its `summary`, a whole sentence written to
fit and never cut."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from zizou.agent.prompt import PromptBuilder
from zizou.contracts.state import SessionState
from zizou.tools import Tool, default_registry
from zizou.tools.base import SUMMARY_MAX_CHARS

TOOLS = list(default_registry())


def session_context(root: Path) -> str:
    builder = PromptBuilder(
        root, default_registry(), SessionState(), write_compiled=False, map_tokens=0
    )
    return next(s.text for s in builder.render().sections if s.name == "SESSION CONTEXT")


def guide(text: str) -> list[str]:
    lines = text.split("\n")
    start = lines.index("Tools:") + 1
    return [line for line in lines[start:] if line.startswith("- ")]


@pytest.mark.parametrize("tool", TOOLS, ids=lambda tool: tool.name)
def test_every_tool_has_a_summary_that_is_one_whole_sentence(tool: Tool[Any]) -> None:
    summary = tool.summary
    assert isinstance(summary, str)
    assert len(summary) <= SUMMARY_MAX_CHARS, f"{len(summary)} characters"
    assert summary == summary.strip() and "\n" not in summary
    assert summary[0].isupper(), "a sentence starts with a capital letter"
    assert summary.endswith("."), "a sentence ends with a full stop"
    assert not re.search(r"[.!?]\s", summary), "one sentence, not two"
    assert "…" not in summary and not summary.endswith("..."), "written to fit, not cut"


def test_the_guide_holds_every_summary_whole(tmp_path: Path) -> None:
    lines = guide(session_context(tmp_path))
    assert lines == [f"- {tool.name}: {tool.summary}" for tool in TOOLS if tool.advertised]
    assert "add_context" not in "\n".join(lines)  # an alias runs, but is not offered


def test_the_guide_no_longer_cuts_the_repo_map_mid_sentence(tmp_path: Path) -> None:
    line = next(line for line in guide(session_context(tmp_path)) if "repo_map" in line)
    assert not line.endswith("with their")
    assert line.endswith(".")
