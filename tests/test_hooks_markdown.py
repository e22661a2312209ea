"""Markdown hooks through the hook runtime: conditions, actions and the front matter's errors."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from zizou.contracts.events import StepStarted, ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import StepChanges, StepInput
from zizou.contracts.state import SessionState
from zizou.contracts.task_state import TaskState, builtin_schema
from zizou.hooks.api import HookError
from zizou.hooks.markdown import check_markdown, compile_markdown
from zizou.hooks.runtime import HookRuntime, HookSource
from zizou.tools import default_registry

NAME = ".zizou/hooks/x.md"
LABEL = f"hook:{NAME}"
_ids = itertools.count(1)


class Harness:
    """One session's hook runtime with a single Markdown hook loaded."""

    def __init__(self, text: str) -> None:
        self.registry = default_registry()
        self.state = SessionState()
        self.rt = HookRuntime(self.registry, self.state)
        problem = self.rt.add(HookSource(name=NAME, origin="project", kind="markdown", text=text))
        assert problem is None

    def plan(self, step: int, tools: tuple[str, ...] | None = None) -> StepChanges:
        offered = tuple(self.registry.names()) if tools is None else tools
        changes = self.rt.plan_step(StepInput(step, 1, offered, ()))
        assert changes.warnings == ()
        return changes

    def call(self, step: int, name: str, ok: bool, **arguments: Any) -> None:
        """A tool call made during `step`, and its result."""
        call_id = f"call_{next(_ids)}"
        self.rt.emit(StepStarted(step))
        self.rt.emit(ToolCallStarted(call_id, name, json.dumps(arguments)))
        self.rt.emit(ToolCallFinished(call_id, name, ok, "exit code 1\nFAILED", 0.1))

    def reminders(self, step: int) -> list[str]:
        changes = self.plan(step)
        assert all(source == LABEL for source, _ in changes.reminders)
        return [text for _, text in changes.reminders]


FAILED_BASH = """---
when:
  tool_failed: run_bash
  every_steps: 1
do:
  remind: Read the failing test's output before you edit anything.
---
"""


def test_a_failed_command_reminds_on_the_next_step_only() -> None:
    hooks = Harness(FAILED_BASH)
    assert hooks.reminders(1) == []
    hooks.call(1, "run_bash", ok=False, command="pytest")
    assert hooks.reminders(2) == ["Read the failing test's output before you edit anything."]
    # No new call in step 2: the failure of step 1 is old news by step 3.
    assert hooks.reminders(3) == []
    hooks.call(3, "run_bash", ok=True, command="pytest")
    assert hooks.reminders(4) == []
    hooks.call(4, "read_file", ok=False, path="missing.py")
    assert hooks.reminders(5) == []


def test_a_new_turn_forgets_the_last_call() -> None:
    hooks = Harness(FAILED_BASH)
    hooks.call(1, "run_bash", ok=False, command="false")
    hooks.rt.begin_turn("next", [])
    assert hooks.reminders(1) == []
    assert hooks.reminders(2) == []


def test_the_body_is_the_text_of_an_empty_remind_and_any_tool_counts() -> None:
    hooks = Harness("---\nwhen: tool_failed any\ndo: remind\n---\n\nLook before you leap.\n")
    hooks.call(1, "edit_file", ok=False, path="a.py")
    assert hooks.reminders(2) == ["Look before you leap."]


def test_after_tool_with_matching_arguments() -> None:
    hooks = Harness(
        "---\n"
        "when:\n"
        "  after_tool:\n"
        "    - edit_file\n"
        "    - write_file\n"
        "  tool_args_match: '(^|/)pyproject\\.toml$'\n"
        "do:\n"
        "  remind: true\n"
        "---\n"
        "No new dependencies.\n"
    )
    hooks.call(1, "edit_file", ok=True, path="src/app.py", old_string="a", new_string="b")
    assert hooks.reminders(2) == []
    hooks.call(2, "edit_file", ok=True, path="PyProject.toml", old_string="a", new_string="b")
    assert hooks.reminders(3) == ["No new dependencies."]
    hooks.call(3, "read_file", ok=True, path="pyproject.toml")
    assert hooks.reminders(4) == []


def test_every_steps_and_step_put_a_system_in_the_hooks_layer() -> None:
    every = Harness("---\nwhen:\n  every_steps: 2\ndo:\n  system: Keep the diff small.\n---\n")
    assert [every.plan(n).systems for n in range(1, 5)] == [
        (),
        ((NAME, "Keep the diff small."),),
        (),
        ((NAME, "Keep the diff small."),),
    ]


def test_step_fires_on_that_step() -> None:
    hooks = Harness("---\nwhen: step: 3\ndo: remind: Check the plan.\n---\n")
    assert [hooks.reminders(n) for n in (1, 2, 3, 4)] == [[], [], ["Check the plan."], []]


def test_no_when_means_every_step() -> None:
    hooks = Harness('---\ndo:\n  system: "Be \\"brief\\"."\n---\n')
    assert hooks.plan(1).systems == ((NAME, 'Be "brief".'),)
    assert hooks.plan(2).systems == ((NAME, 'Be "brief".'),)


def test_mode() -> None:
    hooks = Harness("---\nwhen:\n  mode: plan\ndo:\n  remind: Plan only; change nothing.\n---\n")
    assert hooks.reminders(1) == []
    hooks.state.set_mode("plan")
    assert hooks.reminders(2) == ["Plan only; change nothing."]


def test_message_matches_the_turns_user_message() -> None:
    hooks = Harness(
        "---\nwhen:\n  message_matches: '\\bdeploy(ing)?\\b'  # a comment\n"
        "do:\n  remind: Never deploy from here.\n---\n"
    )
    hooks.rt.begin_turn("fix the parser", [])
    assert hooks.reminders(1) == []
    hooks.rt.begin_turn("Deploying today: get it ready", [])
    assert hooks.reminders(1) == ["Never deploy from here."]


def test_state_true_by_key_and_by_pointer() -> None:
    by_key = Harness("---\nwhen:\n  state_true: questions\ndo:\n  remind: Ask first.\n---\n")
    by_pointer = Harness(
        "---\nwhen:\n  state_true: /plan/0/note\ndo:\n  remind: Blocked: see the note.\n---\n"
    )
    for hooks in (by_key, by_pointer):
        assert hooks.reminders(1) == []  # no task state at all
        hooks.state.task = TaskState(builtin_schema())
        assert hooks.reminders(2) == []  # empty, so falsy
    by_key.state.update_task(merge={"questions": ["Which database?"]})
    assert by_key.reminders(3) == ["Ask first."]
    plan = [{"id": "p1", "title": "Migrate", "status": "pending", "note": "no credentials"}]
    by_pointer.state.update_task(merge={"plan": plan})
    assert by_pointer.reminders(3) == ["Blocked: see the note."]


def test_tools_only_narrows_to_the_offered_tools_named() -> None:
    hooks = Harness(
        "---\nwhen: tool_failed run_bash\n"
        "do:\n  tools_only: [read_file, grep, 'no_such_tool']\n  why: fix the failure first\n---\n"
    )
    assert hooks.plan(1).hidden == ()
    hooks.call(1, "run_bash", ok=False, command="make")
    changes = hooks.plan(2)
    hidden = dict(changes.hidden)
    assert set(hooks.registry.names()) - set(hidden) == {"read_file", "grep"}
    assert hidden["run_bash"] == f"fix the failure first ({LABEL})"
    assert any("narrow_tools" in line for line in changes.effects_run)
    # Only the step's tools are narrowed: grep is not offered, read_file stays.
    assert dict(hooks.plan(3, ("read_file", "edit_file")).hidden) == {}
    hooks.call(3, "run_bash", ok=False, command="make")
    assert set(dict(hooks.plan(4, ("read_file", "edit_file")).hidden)) == {"edit_file"}


def test_tools_without_hides_those_named() -> None:
    hooks = Harness("---\ndo:\n  tools_without: [run_bash, delete_file]\n---\n")
    hidden = dict(hooks.plan(1).hidden)
    assert set(hidden) == {"run_bash", "delete_file"}
    assert hidden["delete_file"].startswith("this step offers only read_file, ")


def test_the_compiled_render_is_usable_without_the_runtime() -> None:
    render = compile_markdown(NAME, "---\ndo: remind hi\n---\n")
    assert callable(render)
    assert check_markdown(NAME, "---\ndo: remind hi\n---\n") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("Just a note.\n", "no front matter"),
        ("---\ndo:\n  remind: hi\n", "no closing `---`"),
        ("---\nwhen:\n  step: 1\n---\nbody\n", "no `do:`"),
        (
            "---\nwhen:\n  tool_crashed: run_bash\ndo: remind hi\n---\n",
            "unknown condition `tool_crashed`",
        ),
        ("---\ndo:\n  shout: hi\n---\n", "unknown action `shout`"),
        (
            "---\nwhen:\n  every_steps: two\ndo: remind hi\n---\n",
            "`every_steps` must be a whole number",
        ),
        (
            "---\nwhen:\n  every_steps: 0\ndo: remind hi\n---\n",
            "`every_steps` must be a whole number",
        ),
        ("---\nwhen:\n  step: [1, 2]\ndo: remind hi\n---\n", "`step` takes one value, not a list"),
        (
            "---\nwhen:\n  message_matches: '(unclosed'\ndo: remind hi\n---\n",
            "`message_matches` is not a valid regular expression",
        ),
        ("---\nwhen:\n  mode: review\ndo: remind hi\n---\n", "`mode` is plan or build"),
        ("---\nwhen:\n  state_true:\ndo: remind hi\n---\n", "`state_true` needs a key"),
        ("---\nwhen:\n  after_tool: []\ndo: remind hi\n---\n", "`after_tool` names no tool"),
        ("---\ndo:\n  remind:\n---\n", "`remind` is empty and the file has no body"),
        ("---\ndo:\n  tools_only: []\n---\n", "`tools_only` names no tool"),
        ("---\ndo:\n  remind: hi\n  why: because\n---\n", "`why` goes with tools_only"),
        ("---\ndo:\n  remind: [a, b]\n---\n", "`remind` takes text, not a list"),
        ("---\ndo:\n  remind: |\n    text\n---\n", "block values (| or >) are not supported"),
        ('---\ndo:\n  remind: "unclosed\n---\n', "a badly quoted string"),
        ("---\ndo:\n  tools_only: [a, b\n---\n", "an unclosed or odd list"),
        (
            "---\nwhen:\n  step: 1\n  step: 2\ndo: remind hi\n---\n",
            "line 4: when: `step` is given twice",
        ),
        ("---\nthen:\n  remind: hi\n---\n", "line 2: expected when:, do: or description:"),
        ("---\n  remind: hi\n---\n", "line 2: an indented line outside when: or do:"),
        ("---\ndo:\n  remind hi\n---\n", "line 3: expected `key: value`"),
    ],
)
def test_bad_front_matter_is_a_clear_hook_error(text: str, message: str) -> None:
    with pytest.raises(HookError, match=r"^\.zizou/hooks/x\.md: ") as raised:
        compile_markdown(NAME, text)
    assert message in str(raised.value)
    assert any(message in problem for problem in check_markdown(NAME, text))
    rt = HookRuntime(default_registry(), SessionState())
    warning = rt.add(HookSource(name=NAME, origin="project", kind="markdown", text=text))
    assert warning is not None and message in warning
    assert rt.hooks == [] and message in rt.skipped[NAME]


def test_every_problem_is_listed() -> None:
    problems = check_markdown(NAME, "---\nwhen:\n  foo: 1\n  step: x\ndo:\n  bar: 2\n---\n")
    assert len(problems) == 4  # foo, step, bar, and no action left
    assert "unknown condition `foo`" in problems[0]
    assert "`step` must be a whole number" in problems[1]


def test_comments_quotes_and_description_are_accepted() -> None:
    text = (
        "---\n"
        "# a comment line\n"
        "description: what this is for,\n"
        "  over two lines\n"
        "when:\n"
        "  tool_failed: [\"run_bash\", 'edit_file']  # either\n"
        "do:\n"
        "  remind: 'It''s failing: look # closely'  # the quoted # stays\n"
        "---\n"
    )
    hooks = Harness(text)
    hooks.call(1, "edit_file", ok=False, path="a.py")
    assert hooks.reminders(2) == ["It's failing: look # closely"]


def test_after_tool_succeeded_and_failed_tell_how_the_call_went() -> None:
    went = {
        key: Harness(f"---\nwhen: {key} edit_file\ndo: remind\n---\n\n{key}.\n")
        for key in ("after_tool", "tool_succeeded", "tool_failed")
    }
    for ok in (True, False):
        for hooks in went.values():
            hooks.call(1, "edit_file", ok=ok, path="a.py")
        fired = {key for key, hooks in went.items() if hooks.reminders(2)}
        assert fired == {"after_tool", "tool_succeeded" if ok else "tool_failed"}
