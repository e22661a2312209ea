"""The example hooks of examples/hooks/ load through the hook runtime and do what they say."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

from zizou.contracts.events import StepStarted, ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import StepChanges, StepInput
from zizou.contracts.state import SessionState
from zizou.hooks.markdown import check_markdown
from zizou.hooks.runtime import HookRuntime, HookSource
from zizou.tools import default_registry

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "hooks"
FOCUS = EXAMPLES / "focus_after_failed_tests.py"
NO_DEPS = EXAMPLES / "no-new-dependencies.md"
FAILED_OUTPUT = "exit code 1\n" + "\n".join(f"line {n}" for n in range(1, 31)) + "\n1 failed"
_ids = itertools.count(1)


class Session:
    """A hook runtime with one example hook loaded, driven step by step as the loop would."""

    def __init__(self, path: Path) -> None:
        self.registry = default_registry()
        self.state = SessionState()
        self.rt = HookRuntime(self.registry, self.state)
        self.name = f".zizou/hooks/{path.name}"
        text = path.read_text()
        if path.suffix == ".py":
            source = HookSource(self.name, "project", "python", text, path)
        else:
            source = HookSource(self.name, "project", "markdown", text, path)
        assert self.rt.add(source) is None

    def plan(self, step: int, turn: int = 1) -> StepChanges:
        changes = self.rt.plan_step(StepInput(step, turn, tuple(self.registry.names()), ()))
        assert changes.warnings == ()
        return changes

    def call(self, step: int, name: str, ok: bool, output: str = "", **arguments: Any) -> None:
        call_id = f"call_{next(_ids)}"
        self.rt.emit(StepStarted(step))
        self.rt.emit(ToolCallStarted(call_id, name, json.dumps(arguments)))
        self.rt.emit(ToolCallFinished(call_id, name, ok, output, 0.5))

    def offered(self, changes: StepChanges) -> set[str]:
        return set(self.registry.names()) - {name for name, _ in changes.hidden}


def test_a_failed_test_run_narrows_the_next_step_and_reminds_of_the_failure() -> None:
    session = Session(FOCUS)
    first = session.plan(1)
    assert first.hidden == () and first.reminders == ()
    session.call(1, "run_bash", ok=False, output=FAILED_OUTPUT, command="pytest -q tests/")
    changes = session.plan(2)
    offered = session.offered(changes)
    assert {"read_file", "grep", "glob", "edit_file", "write_file", "run_bash"} <= offered
    assert not offered & {"delete_file", "open_file"}
    assert all("the tests just failed" in why for _, why in changes.hidden)
    [(source, text)] = changes.reminders
    assert source == f"hook:{session.name}"
    assert "`pytest -q tests/`" in text and text.count("line ") == 14 and "1 failed" in text
    assert "ask" not in text
    # The model read a file in step 2: step 3 offers every tool again.
    session.call(2, "read_file", ok=True, output="...", path="tests/test_x.py")
    assert session.plan(3).hidden == () and session.plan(3).reminders == ()


def test_a_passing_test_run_leaves_every_tool_offered() -> None:
    session = Session(FOCUS)
    session.call(1, "run_bash", ok=True, output="exit code 0\n3 passed", command="go test ./...")
    changes = session.plan(2)
    assert changes.hidden == () and changes.reminders == ()


def test_a_failed_command_that_runs_no_tests_changes_nothing() -> None:
    session = Session(FOCUS)
    session.call(1, "run_bash", ok=False, output="exit code 2\nno such file", command="ls nope")
    assert session.plan(2).hidden == ()


def test_after_three_failed_runs_in_a_row_the_model_is_told_to_ask() -> None:
    session = Session(FOCUS)
    commands = ["npm test", "npm run test -- --watch=false", "cargo test"]
    texts = []
    for step, command in enumerate(commands, start=1):
        session.call(step, "run_bash", ok=False, output=FAILED_OUTPUT, command=command)
        [(_, text)] = session.plan(step + 1).reminders
        texts.append(text)
    assert ["ask how to proceed" in text for text in texts] == [False, False, True]
    assert "3 failed test runs in a row" in texts[2]
    assert session.state.hook_state[session.name] == {"failed_test_runs": 3}
    # A passing run resets the count: the next failure is the first again.
    session.call(4, "run_bash", ok=True, output="exit code 0", command="cargo test")
    session.plan(5)
    session.call(5, "run_bash", ok=False, output=FAILED_OUTPUT, command="cargo test")
    [(_, text)] = session.plan(6).reminders
    assert "ask how to proceed" not in text
    assert session.state.hook_state[session.name] == {"failed_test_runs": 1}


def test_the_markdown_example_reminds_after_a_dependency_file_changes() -> None:
    assert check_markdown(NO_DEPS.name, NO_DEPS.read_text()) == []
    session = Session(NO_DEPS)
    assert session.plan(1).reminders == ()
    session.call(1, "edit_file", ok=True, path="src/app.py", old_string="a", new_string="b")
    assert session.plan(2).reminders == ()
    session.call(2, "edit_file", ok=True, path="pyproject.toml", old_string="a", new_string="b")
    [(source, text)] = session.plan(3).reminders
    assert source == f"hook:{session.name}"
    assert text.startswith("Project rule: no new dependencies without asking.")
    assert session.plan(4).reminders == ()  # once, right after the change
    session.call(4, "run_bash", ok=True, output="exit code 0", command="uv add requests")
    assert len(session.plan(5).reminders) == 1
    session.call(5, "read_file", ok=True, output="...", path="requirements.txt")
    assert session.plan(6).reminders == ()  # reading it is fine
    session.call(6, "edit_file", ok=False, output="no such file", path="package.json")
    assert session.plan(7).reminders == ()  # a failed edit changed nothing
