"""The step pipeline: each request is assembled in one place, from the layers (stable first),
the step effects (tools hidden, systems added, reminders) and the history; a hidden tool is
refused even when called, and the stable prefix stays byte-identical while a turn runs."""

from __future__ import annotations

import subprocess
from pathlib import Path

from scripted_agent import call, collect, make_agent

from zizou.agent.permissions import Rules
from zizou.contracts.events import StepPlanned, ToolCallFinished
from zizou.contracts.protocols import StepChanges, StepInput
from zizou.contracts.windows import WindowSpec


class Effects:
    """A step effects seam: hides tools, adds a system and a reminder, and records its inputs."""

    def __init__(self, changes: StepChanges) -> None:
        self.changes = changes
        self.seen: list[StepInput] = []

    def plan_step(self, step: StepInput) -> StepChanges:
        self.seen.append(step)
        return self.changes


LAYERS = [
    "BASE INSTRUCTIONS",
    "SESSION CONTEXT",
    "REPO MAP",
    "HOOKS",
    "WORKSPACE",
    "LIVE CONTEXT",
]


def headings(system: str) -> list[str]:
    return [line[2:] for line in system.split("\n") if line.startswith("# ")]


async def test_a_hidden_tool_is_not_offered_and_is_refused_when_called_even_with_yes(
    tmp_path: Path,
) -> None:
    write = call("write_file", path="new.txt", content="x")
    hidden = Effects(StepChanges(hidden=(("write_file", "plan mode is read-only"),)))
    replies = [{"tool_calls": [write]}, {"text": "ok"}]
    agent, model = make_agent(tmp_path, replies, rules=Rules(yes=True), effects=hidden)
    events = await collect(agent, "write it")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished.ok
    assert finished.output == "write_file is not offered in this step (plan mode is read-only)"
    assert not (tmp_path / "new.txt").exists()
    offered = [tool["function"]["name"] for tool in model.requests[0].tools]
    assert "write_file" not in offered and "read_file" in offered
    plans = [e for e in events if isinstance(e, StepPlanned)]
    assert [p.step for p in plans] == [1, 2]
    assert plans[0].hidden == (("write_file", "plan mode is read-only"),)
    assert "write_file" not in plans[0].offered


async def test_effects_add_a_hooks_layer_and_a_reminder_that_is_never_stored(
    tmp_path: Path,
) -> None:
    effects = Effects(
        StepChanges(
            systems=(("house-rules", "Tabs, not spaces."),),
            reminders=(("hook:tests", "Run the tests before you answer."),),
            effects_run=("narrow",),
        )
    )
    agent, model = make_agent(tmp_path, [{"text": "ok"}], effects=effects)
    events = await collect(agent, "hello")
    request = model.requests[0]
    assert "# HOOKS\n\n## house-rules\nTabs, not spaces." in request.system
    last = request.messages[-1]
    assert last == {
        "role": "user",
        "content": '<reminder source="hook:tests">\nRun the tests before you answer.\n</reminder>',
    }
    stored = agent.conversation.messages
    assert all("reminder" not in str(m.get("content")) for m in stored)
    [plan] = [e for e in events if isinstance(e, StepPlanned)]
    assert plan.reminders == ("hook:tests",) and plan.effects_run == ("narrow",)
    assert effects.seen[0].step == 1 and effects.seen[0].turn == 1
    assert "read_file" in effects.seen[0].tools and "add_context" not in effects.seen[0].tools


async def test_layers_run_from_stable_to_volatile_with_git_in_live_context(
    tmp_path: Path,
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "app.py").write_text("def main():\n    return helper()\n")
    (tmp_path / "util.py").write_text("from app import main\n\ndef helper():\n    return main()\n")
    brief = Effects(StepChanges(systems=(("rule", "Be brief."),)))
    agent, model = make_agent(tmp_path, [{"text": "ok"}], effects=brief)
    agent.prompt.state.open_window("app.py", WindowSpec(regex="def main"))  # type: ignore[attr-defined]
    await collect(agent, "look at main")
    request = model.requests[0]
    assert headings(request.system) == LAYERS
    session = request.system.split("# SESSION CONTEXT")[1].split("# REPO MAP")[0]
    assert "Git:" not in session and "Date:" not in session
    live = request.system.split("# LIVE CONTEXT")[1]
    assert "Git: " in live and "Date: " in live
    stable, volatile = request.system_parts
    assert stable.endswith("\n\n") and volatile.startswith("# HOOKS")
    assert "# REPO MAP" in stable


async def test_the_stable_prefix_is_byte_identical_at_every_step_of_a_turn_that_edits(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "main.py").write_text("from calc import add\n\nprint(add(1, 2))\n")
    edit = call(
        "edit_file",
        path="calc.py",
        old_string="def add(a, b):",
        new_string=(
            "def add(a, b):\n    '''Sum.'''\n\ndef mul(a, b):\n    return a * b\n\ndef add2(a, b):"
        ),
    )
    replies = [
        {"tool_calls": [call("read_file", path="calc.py")]},
        {"tool_calls": [edit]},
        {"text": "done"},
    ]
    agent, model = make_agent(tmp_path, replies)
    await collect(agent, "add a mul function to calc")
    systems = [request.system for request in model.requests]
    assert len(systems) == 3
    assert "# REPO MAP" in systems[0] and "calc.py" in systems[0].split("# REPO MAP")[1]
    prefixes = {s[: s.index("# LIVE CONTEXT")] for s in systems}
    assert len(prefixes) == 1, "the stable layers changed between steps"
    [cut] = {request.stable_chars for request in model.requests}
    stable = systems[0][:cut]
    assert "# REPO MAP" in stable and "# WORKSPACE" not in stable and "# LIVE" not in stable
    assert systems[0][cut:].startswith("# LIVE CONTEXT")
    model.add({"text": "next"})
    await collect(agent, "and now mul?")
    assert "mul" in model.requests[-1].system.split("# REPO MAP")[1]  # a new turn maps afresh


async def test_an_old_name_of_a_hidden_tool_is_refused_too(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    old = call("add_context", path="a.txt")
    why = "plan mode keeps the workspace"
    hidden = Effects(StepChanges(hidden=(("open_in_workspace", why),)))
    replies = [{"tool_calls": [old]}, {"text": "ok"}]
    agent, _ = make_agent(tmp_path, replies, rules=Rules(yes=True), effects=hidden)
    events = await collect(agent, "pin it")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.output == f"add_context is not offered in this step ({why})"
    assert agent.prompt.state.windows == ()  # type: ignore[attr-defined]


async def test_an_old_name_runs_while_its_tool_is_offered(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    agent, model = make_agent(
        tmp_path, [{"tool_calls": [call("add_context", path="a.txt")]}, {"text": "ok"}]
    )
    events = await collect(agent, "pin it")
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished.ok, finished.output
    assert "## a.txt · w1 · lines 1-1" in model.requests[1].system


async def test_a_tool_that_could_do_nothing_yet_is_offered_from_the_step_after_it_applies(
    tmp_path: Path,
) -> None:
    """No window open and no job: replace_window, close_in_workspace, job_output, job_kill and
    read_output are not sent (a smaller request); once a window is open they are, from the
    next step on, and a call to one before is refused as not offered."""
    (tmp_path / "a.py").write_text("one\ntwo\n")
    early = call("close_in_workspace", id="w1")
    opened = call("open_in_workspace", path="a.py")
    replies = [{"tool_calls": [early, opened]}, {"text": "done"}]
    agent, model = make_agent(tmp_path, replies, rules=Rules(yes=True))
    events = await collect(agent, "open a.py")
    first, second = ([t["function"]["name"] for t in r.tools] for r in model.requests)
    waiting = {"replace_window", "close_in_workspace", "job_output", "job_kill", "read_output"}
    assert not waiting & set(first) and "open_in_workspace" in first
    assert {"replace_window", "close_in_workspace"} <= set(second)
    assert not {"job_output", "job_kill", "read_output"} & set(second)  # still no job
    refused = next(e for e in events if isinstance(e, ToolCallFinished))
    assert refused.output == (
        "close_in_workspace is not offered in this step (it is offered once a window is open)"
    )
