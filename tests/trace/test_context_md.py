"""context.md must say what the code sends: its numbered sections are the debug log's, its prompt
layers are PromptBuilder's, it names every tool of the registry and every kind of record the log
writes in section 6."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from zizou.agent.loop import Agent
from zizou.agent.prompt import PromptBuilder
from zizou.contracts.state import SessionState
from zizou.contracts.windows import WHOLE_FILE
from zizou.tools import default_registry
from zizou.tools.base import SUMMARY_MAX_CHARS
from zizou.trace.debug_log import DebugLog
from zizou.trace.sections import parse_headings

CONTEXT_MD = Path(__file__).resolve().parents[2] / "context.md"


def context_md() -> str:
    return CONTEXT_MD.read_text(encoding="utf-8")


def numbered_sections(text: str) -> list[tuple[int, str]]:
    return [(int(n), title) for n, title in re.findall(r"^## (\d+) (.+?)\s*$", text, re.M)]


def layers(text: str) -> list[str]:
    return [title for _, title in re.findall(r"^### 1\.(\d+) (.+?)\s*$", text, re.M)]


def section_body(text: str, number: int) -> str:
    match = re.search(rf"^## {number} .*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"context.md has no section {number}"
    return match.group(1)


async def test_context_md_has_the_debug_logs_sections_in_order(
    tmp_path: Path, logged_agent: Callable[..., tuple[Agent, DebugLog]]
) -> None:
    agent, _ = logged_agent(tmp_path, [{"text": "hi"}])
    async for _ in agent.run_turn("hello"):
        pass
    log = (tmp_path / "zizou-debug.log").read_text(encoding="utf-8")
    assert numbered_sections(context_md()) == parse_headings(log)


def test_context_md_lists_the_prompt_layers_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("pinned\n")
    workspace = SessionState()
    workspace.open_window("a.txt", WHOLE_FILE)
    builder = PromptBuilder(tmp_path, default_registry(), workspace, write_compiled=False)
    names = [section.name for section in builder.render().sections]
    assert layers(context_md()) == names


def test_context_md_names_every_tool_the_model_gets() -> None:
    tools_section = section_body(context_md(), 4)
    missing = [n for n in default_registry().names() if f"`{n}`" not in tools_section]
    assert missing == []


def test_context_md_says_the_tool_guide_is_each_tools_summary() -> None:
    match = re.search(r"^### 1\.2 .*?$(.*?)(?=^#)", context_md(), re.M | re.S)
    assert match, "context.md has no section 1.2"
    assert "`summary`" in match.group(1)
    assert f"at most {SUMMARY_MAX_CHARS} characters" in match.group(1)


async def test_context_md_names_every_record_of_the_live_events(
    tmp_path: Path, logged_agent: Callable[..., tuple[Agent, DebugLog]]
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    calls = [("read_file", '{"path": "a.txt"}'), ("run_bash", '{"command": "sort a.txt"}')]
    replies = [
        {"tool_calls": [{"name": name, "arguments": args} for name, args in calls]},
        {"text": "done"},
    ]
    agent, _ = logged_agent(tmp_path, replies)
    async for _ in agent.run_turn("hello"):
        pass
    log = (tmp_path / "zizou-debug.log").read_text(encoding="utf-8")
    labels = set(re.findall(r"^\S+ \+\S+s ([A-Z][A-Z-]+)", log, re.M))
    assert {"PERMISSION-ASK", "PERMISSION-DECIDED"} <= labels
    events = section_body(context_md(), 6)
    assert sorted(label for label in labels if label not in events) == []
