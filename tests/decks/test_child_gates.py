"""Every gate of the main agent holds inside its sub-agents: a deck's child and a compute deck's
tool calls run with gates derived from the main runner's (`CallGates.for_child`), in a session
built as the front ends build it (scripted model, real files, real hooks and checks)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from zizou.agent.approvers import ScriptedApprover
from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions
from zizou.contracts.events import TurnFinished
from zizou.contracts.protocols import Approval
from zizou.decks.compute import tool_runner
from zizou.decks.tools import Caller, action_of
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session
from zizou.session.unattended import HeadlessApprover

STRING = {"type": "string"}
GUARD = """
from zizou.hooks import before_tool, deny

@before_tool
def no_rm(call, ctx):
    if call.name == "run_bash" and "rm " in call.arguments["command"]:
        return deny("no rm in this project")
"""


def deck(root: Path, name: str, tools: list[str]) -> None:
    folder = root / ".zizou" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"description": f"The {name} deck.", "input": STRING, "output": STRING}
    (folder / f"{name}.deck.md").write_text(
        f"---\n{json.dumps({**front, 'tools': tools})}\n---\nDo it.\n"
    )


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def session(root: Path, model: ScriptedModel, approver: Any = None, **options: Any) -> Session:
    opts = RunOptions(root=root, debug_log=False, **options)
    return build_session(opts, model, approver or HeadlessApprover(), persist=False)


async def run(runtime: Session, name: str, value: str) -> Any:
    env = runtime.decks
    assert env is not None
    found = env.decks.get(name)
    assert found is not None, env.decks.problems
    return await env.call(found, action_of(found), value, Caller(), None)


def results(model: ScriptedModel) -> list[str]:
    last = model.requests[-1].messages
    return [str(m["content"]) for m in last if m["role"] == "tool"][1:]  # past turn 0's


async def test_plan_mode_refuses_a_write_inside_a_deck(tmp_path: Path) -> None:
    deck(tmp_path, "writer", ["write_file"])
    model = ScriptedModel([tool_call("write_file", path="x.txt", content="x\n"), {"text": "ok"}])
    runtime = session(tmp_path, model, mode="plan", rules=Rules(yes=True))
    outcome = await run(runtime, "writer", "go")
    assert outcome.ok
    assert not (tmp_path / "x.txt").exists()
    assert "write_file is not offered in this step" in results(model)[0]


async def test_the_hooks_before_tool_holds_inside_a_deck(tmp_path: Path) -> None:
    hooks = tmp_path / ".zizou" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "guard.py").write_text(GUARD)
    (tmp_path / "keep.txt").write_text("kept\n")
    deck(tmp_path, "cleaner", ["run_bash"])
    model = ScriptedModel(
        [
            tool_call("cleaner", input="clean up"),  # the main agent
            tool_call("run_bash", command="rm keep.txt"),  # the deck's run
            {"text": "cleaned"},
            {"text": "done"},  # the main agent again
        ]
    )
    runtime = session(tmp_path, model, trust_hooks=True, rules=Rules(yes=True))
    assert runtime.untrusted == [], runtime.warnings
    events = [event async for event in runtime.agent.run_turn("clean")]
    assert isinstance(events[-1], TurnFinished) and events[-1].text == "done"
    assert (tmp_path / "keep.txt").exists()
    child = [str(m["content"]) for m in model.requests[2].messages if m["role"] == "tool"]
    assert "no rm in this project" in child[-1]


async def test_always_said_inside_a_deck_holds_for_the_main_agent_and_back(
    tmp_path: Path,
) -> None:
    deck(tmp_path, "toucher", ["run_bash"])
    model = ScriptedModel([tool_call("run_bash", command="touch made.txt"), {"text": "ok"}])
    approver = ScriptedApprover([Approval("always")])
    runtime = session(tmp_path, model, approver, sandbox="off")
    await run(runtime, "toucher", "go")
    assert (tmp_path / "made.txt").exists()
    assert "touch" in runtime.agent.runner.rules.bash_prefixes
    # and a rule the main agent holds applies in the next run without asking
    model.add(tool_call("run_bash", command="touch made.txt"), {"text": "again"})
    await run(runtime, "toucher", "go")
    assert len(approver.requests) == 1


async def test_the_checks_after_an_edit_hold_inside_a_deck(tmp_path: Path) -> None:
    deck(tmp_path, "coder", ["write_file"])
    broken = "def f(:\n    return 1\n"
    model = ScriptedModel([tool_call("write_file", path="m.py", content=broken), {"text": "ok"}])
    runtime = session(tmp_path, model, rules=Rules(yes=True))
    await run(runtime, "coder", "go")
    assert "New syntax problems after this change" in results(model)[0]


def test_a_compute_decks_tool_calls_get_every_gate_of_the_parent(tmp_path: Path) -> None:
    runtime = session(tmp_path, ScriptedModel([]), mode="plan", trust_hooks=True)
    env = runtime.decks
    assert env is not None
    [found] = [d for d in env.decks.decks.values() if d.name == "explore"]
    runner = tool_runner(env, found, Caller(chain=("explore",)))
    parent = runtime.agent.runner.gates
    child = runner.gates
    assert child.book is parent.book and child.approver is parent.approver
    assert child.policy is parent.policy and child.read_only is parent.read_only
    assert child.changes is parent.changes and child.checks is parent.checks
    assert child.chain == ("explore",)
    assert child.read_only is not None and child.read_only() is not None  # plan mode holds
