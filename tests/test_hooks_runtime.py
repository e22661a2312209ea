"""The hook runtime on real hook files: render, reconciliation, effects and their deps, step
modifiers, reminders, batched state, failure isolation, before_tool, and the plan mode."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from zizou.contracts.events import StepStarted, ToolCallFinished, ToolCallStarted
from zizou.contracts.protocols import StepInput
from zizou.contracts.state import HookStateChanged, ModeChanged, SessionState, StateEvent
from zizou.contracts.task_state import TaskState, builtin_schema
from zizou.hooks import api as hooks_api
from zizou.hooks.modes import modes_hook, next_mode, plan_text
from zizou.hooks.runtime import HookRuntime, HookSource
from zizou.tools import default_registry


def runtime(*texts: str, state: SessionState | None = None) -> HookRuntime:
    registry = default_registry()
    rt = HookRuntime(registry, state or SessionState())
    for index, text in enumerate(texts):
        name = f".zizou/hooks/h{index}.py"
        problem = rt.add(HookSource(name, "project", "python", text, Path(name), "x"))
        assert problem is None, problem
    return rt


def step(rt: HookRuntime, n: int, turn: int = 1, messages: tuple[dict[str, Any], ...] = ()) -> Any:
    return rt.plan_step(StepInput(n, turn, tuple(rt.registry.names()), messages))


def test_the_public_module_exports_exactly_the_api() -> None:
    import zizou.hooks

    assert sorted(zizou.hooks.__all__) == sorted(
        [
            "Handle",
            "HookError",
            "LastTool",
            "Prompt",
            "PromptContext",
            "StepModifier",
            "ToolCallInfo",
            "ToolInfo",
            "Tools",
            "ask",
            "before_tool",
            "def_state",
            "deny",
            "effect",
        ]
    )
    for name in zizou.hooks.__all__:
        assert getattr(zizou.hooks, name) is not None


def test_an_effect_with_deps_runs_once_then_only_when_a_dependency_changes() -> None:
    rt = runtime(
        """
from zizou.hooks import effect
runs = []
@effect(deps=lambda ctx: [ctx.turn_number])
def per_turn(ctx, step):
    runs.append(ctx.step_number)
"""
    )
    ran = [bool(step(rt, n, turn).effects_run) for n, turn in ((1, 1), (2, 1), (3, 1), (1, 2))]
    assert ran == [True, False, False, True]
    assert "deps changed" in step(rt, 1, 3).effects_run[0]


def test_an_effect_without_deps_runs_every_step_and_its_cleanup_runs_before_the_next() -> None:
    rt = runtime(
        """
from zizou.hooks import effect, def_state
log = []
@effect()
def every(ctx, step):
    log.append(("run", ctx.step_number))
    return lambda: log.append(("clean", ctx.step_number))
def render(p):
    p.variable("log", list(log))
"""
    )
    for n in (1, 2, 3):
        step(rt, n)
    changes = step(rt, 4)
    text = dict(changes.systems)["log"]
    assert json.loads(text.split("\n", 1)[1].rsplit("\n", 1)[0]) == [
        ["run", 1],
        ["clean", 1],
        ["run", 2],
        ["clean", 2],
        ["run", 3],
    ]


def test_step_tools_narrows_one_request_names_the_hook_and_the_next_has_them_all() -> None:
    rt = runtime(
        """
def render(p):
    if p.ctx.step_number == 2:
        @p.effect()
        def narrow(ctx, step):
            step("tools", ["read_file"], why="only reading now")
            step("tools", ["grep"])
"""
    )
    assert step(rt, 1).hidden == ()
    hidden = dict(step(rt, 2).hidden)
    assert "read_file" not in hidden and "grep" not in hidden
    assert hidden["write_file"] == "only reading now (hook:.zizou/hooks/h0.py)"
    assert step(rt, 3).hidden == ()


def test_two_hooks_narrowing_keep_only_what_both_keep() -> None:
    narrow = """
from zizou.hooks import effect
@effect()
def narrow(ctx, step):
    step("tools", {names})
"""
    rt = runtime(
        narrow.format(names=["read_file", "grep"]), narrow.format(names=["grep", "run_bash"])
    )
    hidden = dict(step(rt, 1).hidden)
    offered = [name for name in rt.registry.names() if name not in hidden]
    assert offered == ["grep"]


def test_a_reminded_item_goes_in_that_request_only_and_a_disabled_one_is_left_out() -> None:
    rt = runtime(
        """
def render(p):
    rule = p.system("rule", "Never edit generated files.")
    secret = p.variable("scratch", {"a": 1})
    if p.ctx.step_number == 2:
        rule.remind()
        secret.disable()
"""
    )
    first, second, third = step(rt, 1), step(rt, 2), step(rt, 3)
    assert first.reminders == () and third.reminders == ()
    assert second.reminders == (("hook:.zizou/hooks/h0.py", "Never edit generated files."),)
    assert [name for name, _ in first.systems] == ["rule", "scratch"]
    assert [name for name, _ in second.systems] == ["rule"]


def test_state_is_batched_per_step_and_kept_in_the_session() -> None:
    state = SessionState()
    told: list[StateEvent] = []
    state.subscribe(told.append)
    text = """
from zizou.hooks import effect, def_state
count, set_count = def_state("count", 0)
@effect()
def tick(ctx, step):
    set_count(count() + 1)
    set_count(lambda old: old + 1)
def render(p):
    p.variable("seen", count())
"""
    rt = runtime(text, state=state)
    seen = [dict(step(rt, n).systems)["seen"] for n in (1, 2, 3)]
    assert seen == ["<seen>\n0\n</seen>", "<seen>\n2\n</seen>", "<seen>\n4\n</seen>"]
    assert state.hook_state == {".zizou/hooks/h0.py": {"count": 6}}
    assert [e.value for e in told if isinstance(e, HookStateChanged)] == [2, 4, 6]
    # A new runtime over the same session state (what `-c` rebuilds) reads it back.
    again = runtime(text, state=state)
    assert dict(step(again, 1).systems)["seen"] == "<seen>\n6\n</seen>"


def test_a_raising_render_disables_its_file_and_the_others_go_on() -> None:
    rt = runtime(
        "def render(p):\n    raise ValueError('boom')\n",
        "def render(p):\n    p.system('ok', 'still here')\n",
    )
    first = step(rt, 1)
    assert [w.hook for w in first.warnings] == ["hook:.zizou/hooks/h0.py"]
    assert "ValueError: boom" in first.warnings[0].message
    assert "Traceback" in (first.warnings[0].detail or "")
    assert first.systems == (("ok", "still here"),)
    assert step(rt, 2).warnings == ()  # said once; the file no longer runs


def test_a_raising_effect_is_disabled_alone() -> None:
    rt = runtime(
        """
from zizou.hooks import effect
@effect()
def bad(ctx, step):
    step("tools", ["no_such_tool"])
@effect()
def good(ctx, step):
    step("systems", {"fine": "yes"})
"""
    )
    first = step(rt, 1)
    assert len(first.warnings) == 1 and "no such tool: no_such_tool" in first.warnings[0].message
    assert first.warnings[0].hook == "hook:.zizou/hooks/h0.py/bad"
    assert first.systems == (("fine", "yes"),)
    second = step(rt, 2)
    assert second.warnings == () and len(second.effects_run) == 1


def test_an_effect_that_is_no_longer_registered_is_cleaned_up() -> None:
    rt = runtime(
        """
cleaned = []
def render(p):
    if p.ctx.step_number == 1:
        @p.effect()
        def once(ctx, step):
            return lambda: cleaned.append(ctx.step_number)
    p.variable("cleaned", list(cleaned))
"""
    )
    step(rt, 1)
    step(rt, 2)  # `once` is gone from the render: its cleanup runs
    assert dict(step(rt, 3).systems)["cleaned"] == "<cleaned>\n[\n  1\n]\n</cleaned>"


def test_an_async_effect_is_awaited() -> None:
    rt = runtime(
        """
import asyncio
from zizou.hooks import effect
@effect()
async def later(ctx, step):
    await asyncio.sleep(0)
    step("systems", {"async": "done"})
"""
    )
    assert step(rt, 1).systems == (("async", "done"),)


def test_a_messages_replacement_must_keep_the_last_message_and_pair_results() -> None:
    history = (
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c1"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "x"},
    )
    rt = runtime(
        """
from zizou.hooks import effect
@effect()
def trim(ctx, step):
    if ctx.step_number == 1:
        step("messages", list(ctx.messages[1:]))
    elif ctx.step_number == 2:
        step("messages", [ctx.messages[0], ctx.messages[-1]])
    else:
        step("messages", [ctx.messages[0]])
"""
    )
    assert step(rt, 1, messages=history).messages == history[1:]
    orphan = step(rt, 2, messages=history)
    assert orphan.messages is None and "does not follow its call" in orphan.warnings[0].message
    cut = step(rt, 3, messages=history)
    assert cut.messages is None and "does not keep the last message" in cut.warnings[0].message


def test_last_tool_and_the_user_message_come_from_the_turn() -> None:
    rt = runtime(
        """
def render(p):
    last = p.ctx.last_tool
    if last is not None:
        p.system("last", f"{last.name} ok={last.ok} cmd={last.arguments.get('command')}")
    p.system("asked", p.ctx.user_message)
"""
    )
    rt.begin_turn("fix the tests", [])
    rt.emit(StepStarted(1))
    rt.emit(ToolCallStarted("c1", "run_bash", '{"command": "pytest"}', "pytest"))
    rt.emit(ToolCallFinished("c1", "run_bash", False, "1 failed", 0.5))
    systems = dict(step(rt, 2).systems)
    assert systems == {"last": "run_bash ok=False cmd=pytest", "asked": "fix the tests"}


def test_before_tool_denies_or_asks_and_a_raising_one_is_dropped() -> None:
    rt = runtime(
        """
from zizou.hooks import before_tool, deny, ask
@before_tool
def guard(call, ctx):
    if call.name == "run_bash" and "rm " in call.arguments["command"]:
        return deny("no rm here")
    if call.access == "write":
        return ask("writes are reviewed")
""",
        """
from zizou.hooks import before_tool
@before_tool
def broken(call, ctx):
    raise RuntimeError("oops")
""",
    )
    step(rt, 1)
    verdict = rt.before_tool("run_bash", {"command": "rm -rf x"}, "exec")
    assert verdict is not None and verdict.verdict == "deny"
    assert verdict.source == "hook:.zizou/hooks/h0.py" and verdict.reason == "no rm here"
    failed = rt.before_tool("write_file", {"path": "a"}, "write")  # h1 raises: fails closed
    assert failed is not None and failed.verdict == "deny" and "broken failed" in failed.reason
    asked = rt.before_tool("write_file", {"path": "a"}, "write")  # h1 is dropped now
    assert asked is not None and asked.verdict == "ask"
    assert rt.before_tool("read_file", {"path": "a"}, "read") is None
    warnings = step(rt, 2).warnings
    assert [w.hook for w in warnings] == ["hook:.zizou/hooks/h1.py/broken"]  # told once
    assert step(rt, 3).warnings == ()  # and not registered again by the next render


def test_a_before_tool_that_answers_nonsense_or_is_async_fails_closed() -> None:
    rt = runtime(
        """
from zizou.hooks import before_tool, deny
@before_tool
def forgot_to_call(call, ctx):
    return deny
@before_tool
async def later(call, ctx):
    return deny("async says no")
"""
    )
    step(rt, 1)
    first = rt.before_tool("delete_file", {"path": "a"}, "delete")
    assert first is not None and first.verdict == "deny" and "returned function" in first.reason
    second = rt.before_tool("delete_file", {"path": "a"}, "delete")
    assert second is not None and second.reason == "async says no"


def test_failures_outside_render_and_effects_disable_the_hook_not_the_turn() -> None:
    rt = runtime(
        """
class Loud:
    def __str__(self):
        raise RuntimeError("no text")
def render(p):
    p.system("loud", Loud())
""",
        """
from zizou.hooks import effect
@effect(deps=lambda ctx: [ctx.last_tool.name])
def needs_a_tool(ctx, step):
    pass
@effect()
def fine(ctx, step):
    step("systems", {"fine": "yes"})
""",
    )
    first = step(rt, 1)
    assert first.systems == (("fine", "yes"),)
    hooks = sorted(w.hook for w in first.warnings)
    assert hooks == ["hook:.zizou/hooks/h0.py", "hook:.zizou/hooks/h1.py/needs_a_tool"]
    again = step(rt, 2)
    assert again.warnings == () and again.systems == (("fine", "yes"),)


def test_hook_state_changed_in_place_is_only_kept_once_set() -> None:
    state = SessionState()
    rt = runtime(
        """
from zizou.hooks import effect, def_state
seen, set_seen = def_state("seen", [])
@effect()
def grow(ctx, step):
    items = seen()
    items.append(ctx.step_number)
    set_seen(items)
""",
        state=state,
    )
    for n in (1, 2, 3):
        step(rt, n)
    assert state.hook_state[".zizou/hooks/h0.py"]["seen"] == [1, 2, 3]


def test_a_hook_cannot_change_the_task_state_through_the_context() -> None:
    state = SessionState()
    state.task = TaskState(builtin_schema())
    rt = runtime(
        """
def render(p):
    p.ctx.task_state["plan"].append({"id": "x", "title": "sneaky", "status": "pending"})
""",
        state=state,
    )
    step(rt, 1)
    assert state.task is not None and state.task.value["plan"] == []


def test_a_hook_that_fails_to_load_is_reported_not_raised() -> None:
    rt = HookRuntime(default_registry(), SessionState())
    problem = rt.add(HookSource(".zizou/hooks/bad.py", "project", "python", "import nope_x\n"))
    assert problem is not None and "ModuleNotFoundError" in problem
    assert ".zizou/hooks/bad.py" in rt.skipped


def test_module_level_registration_outside_a_hook_file_is_an_error() -> None:
    with pytest.raises(hooks_api.HookError, match="only in a hook file"):
        hooks_api.def_state("x", 1)


def plan_mode(reminder_steps: int = 6) -> tuple[HookRuntime, SessionState]:
    state = SessionState()
    state.task = TaskState(builtin_schema())
    rt = HookRuntime(default_registry(), state)
    rt.add(modes_hook(reminder_steps))
    return rt, state


def test_plan_mode_offers_read_only_tools_and_says_so() -> None:
    rt, state = plan_mode()
    assert step(rt, 1).hidden == ()
    told: list[StateEvent] = []
    state.subscribe(told.append)
    assert state.set_mode("plan") and not state.set_mode("plan")
    assert told == [ModeChanged("plan", "user")]
    changes = step(rt, 1)
    hidden = dict(changes.hidden)
    assert {"write_file", "edit_file", "replace_window", "delete_file", "run_bash"} <= set(hidden)
    offered = [n for n in rt.registry.names() if n not in hidden and rt.registry.get(n)]
    assert {"read_file", "grep", "update_state", "get_instructions", "open_in_workspace"} <= set(
        offered
    )
    assert "plan mode is read-only" in hidden["write_file"]
    assert "hook:builtin:modes" in hidden["write_file"]
    assert dict(changes.systems)["PLAN MODE"].startswith("PLAN MODE is on")
    assert next_mode("plan") == "build" and next_mode("build") == "plan"


def test_open_plan_items_are_reminded_every_n_steps() -> None:
    rt, state = plan_mode(reminder_steps=3)
    plan = [
        {"id": "p1", "title": "read the code", "status": "done"},
        {"id": "p2", "title": "write the fix", "status": "pending"},
    ]
    assert state.update_task(merge={"plan": plan}).ok
    reminded = [bool(step(rt, n).reminders) for n in range(1, 7)]
    assert reminded == [False, False, True, False, False, True]
    text = step(rt, 3).reminders[0][1]
    assert "p2: write the fix" in text and "read the code" not in text
    assert plan_text(state.task.value if state.task else None) == (
        "☑ read the code\n☐ write the fix"
    )


def test_a_hidden_tool_called_anyway_is_refused_naming_the_hook(tmp_path: Path) -> None:
    from zizou.agent.calls import CallRunner
    from zizou.agent.gates import CallGates
    from zizou.agent.permissions import Rules
    from zizou.contracts.protocols import Approval, PermissionRequest, ToolCall
    from zizou.tools import ToolContext, ToolResult

    class Yes:
        async def ask(self, request: PermissionRequest) -> Approval:
            return Approval("once")

    rt, state = plan_mode()
    state.set_mode("plan")
    changes = step(rt, 1)
    ctx = ToolContext(root=tmp_path, state=state)
    runner = CallRunner(rt.registry, ctx, CallGates.of(Yes(), Rules(yes=True)))
    offered = tuple(n for n in rt.registry.names() if n not in dict(changes.hidden))
    runner.offer(offered, dict(changes.hidden))

    async def run() -> list[Any]:
        call = ToolCall("c1", "write_file", json.dumps({"path": "a.txt", "content": "x"}))
        return [item async for item in runner.run(runner.parse(call))]

    items = asyncio.run(run())
    result = items[-1]
    assert isinstance(result, ToolResult) and not result.ok
    assert "write_file is not offered in this step" in result.output
    assert "hook:builtin:modes" in result.output
    assert not (tmp_path / "a.txt").exists()


def test_a_hook_may_use_dataclasses_and_one_calling_sys_exit_does_not_end_the_session() -> None:
    rt = runtime(
        """
from dataclasses import dataclass
@dataclass
class Rule:
    text: str
def render(p):
    p.system("rule", Rule("short functions").text)
""",
        "import sys\ndef render(p):\n    sys.exit(3)\n",
    )
    changes = step(rt, 1)
    assert changes.systems == (("rule", "short functions"),)
    assert "SystemExit" in changes.warnings[0].message
    exits = HookRuntime(default_registry(), SessionState())
    problem = exits.add(HookSource(".zizou/hooks/x.py", "project", "python", "raise SystemExit"))
    assert problem is not None and "SystemExit" in problem


def test_effects_can_remind_and_systems_replacements_stay_in_their_own_file() -> None:
    rt = runtime(
        "def render(p):\n    p.system('mine', 'kept')\n",
        """
from zizou.hooks import effect
@effect()
def swap(ctx, step):
    step("systems", {"theirs": "replaced"})
    step.remind("look again")
def render(p):
    p.system("gone", "replaced by the effect")
""",
    )
    changes = step(rt, 1)
    assert changes.systems == (("mine", "kept"), ("theirs", "replaced"))
    assert changes.reminders == (("hook:.zizou/hooks/h1.py", "look again"),)
    assert dict(step(rt, 2).systems) == {"mine": "kept", "theirs": "replaced"}


def test_the_readme_hook_example_narrows_the_tools_after_a_failed_pytest() -> None:
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    example = readme.split("```python\n# .zizou/hooks/focus.py\n")[1].split("```")[0]
    rt = runtime(example)
    rt.begin_turn("fix it", [])
    rt.emit(StepStarted(1))
    assert step(rt, 1).hidden == ()
    rt.emit(ToolCallStarted("c1", "run_bash", '{"command": "pytest -x"}', "pytest -x"))
    rt.emit(ToolCallFinished("c1", "run_bash", False, "E   assert 1 == 2\n1 failed", 0.3))
    changes = step(rt, 2)
    hidden = dict(changes.hidden)
    assert "delete_file" in hidden and "run_bash" not in hidden and "edit_file" not in hidden
    assert changes.reminders[0][1].endswith("1 failed")
