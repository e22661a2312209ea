"""The REPO MAP layer of the system prompt: present, budgeted, steered, and off when asked."""

from __future__ import annotations

from pathlib import Path

from zizou.agent.prompt import MAP_TOKENS_BY_LEVEL, PromptBuilder
from zizou.contracts.protocols import ToolCall
from zizou.contracts.state import SessionState
from zizou.contracts.windows import WHOLE_FILE, WindowSpec
from zizou.contracts.workspace import line_spec
from zizou.tools import default_registry


def opened(*paths: str, spec: WindowSpec = WHOLE_FILE) -> SessionState:
    state = SessionState()
    for path in paths:
        state.open_window(path, spec)
    return state


def _builder(
    project: Path, workspace: SessionState | None = None, message: str = ""
) -> PromptBuilder:
    return PromptBuilder(
        project,
        default_registry(),
        workspace or SessionState(),
        write_compiled=False,
        mentions=(lambda: message) if message else None,
    )


def _layer(builder: PromptBuilder) -> tuple[str, str]:
    compiled = builder.render()
    section = next(s for s in compiled.sections if s.name == "REPO MAP")
    return section.text, section.note


def test_the_prompt_carries_the_map_with_a_note(project: Path) -> None:
    builder = _builder(project)
    text, note = _layer(builder)
    assert "app/models.py:" in text and "class User:" in text
    assert note.startswith("budget 1024: ") and "definitions" in note and "files" in note
    assert "# REPO MAP\n\nRelevant definitions" in builder.render_text()


def test_files_open_whole_steer_the_map_and_are_left_out_of_it(project: Path) -> None:
    text, _ = _layer(_builder(project, opened("app/views.py")))
    assert "app/views.py:" not in text
    assert text.splitlines()[1] in ("app/service.py:", "app/util.py:")


def test_a_file_open_in_part_steers_the_map_and_keeps_its_definitions(project: Path) -> None:
    text, _ = _layer(_builder(project, opened("app/views.py", spec=line_spec(1, 1))))
    assert "app/views.py:" in text
    assert text.splitlines()[1] in ("app/service.py:", "app/util.py:", "app/views.py:")


def test_the_latest_message_steers_the_map(project: Path) -> None:
    text, _ = _layer(_builder(project, message="refund() gives the wrong user"))
    assert text.splitlines()[1] == "app/admin.py:"


def test_context_levels_set_the_budget_and_light_turns_it_off(project: Path) -> None:
    builder = _builder(project)
    builder.set_context_level("light")
    assert builder.map_tokens == 0
    assert _layer(builder) == ("", "off: /context light")
    builder.set_context_level("max")
    assert builder.map_tokens == MAP_TOKENS_BY_LEVEL["max"] == 8192
    text, note = _layer(builder)
    assert text and note.startswith("budget 8192: ")


def test_a_project_without_source_has_the_layer_off(tmp_path: Path) -> None:
    assert _layer(_builder(tmp_path)) == ("", "off: no source files to map")


def test_the_latest_user_message_is_what_steers(project: Path) -> None:
    state = SessionState()
    assert state.conversation.latest_user_text() == ""
    state.conversation.add_user("first")
    state.conversation.add_assistant("ok", (ToolCall("1", "glob", "{}"),))
    state.conversation.close_pending("x")
    state.conversation.add_user("now fix refund()")
    state.conversation.add_assistant("", (ToolCall("2", "glob", "{}"),))
    assert state.conversation.latest_user_text() == "now fix refund()"
    builder = _builder(project, state)  # the builder reads it from the session's state
    assert _layer(builder)[0].splitlines()[1] == "app/admin.py:"
