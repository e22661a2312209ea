"""Hooks and modes through the real `zizou -p` against the loopback server: trust, effects and
their deps, tool narrowing, reminders, hook state across steps and `-c`, a failing hook, plan
mode, and a Markdown hook."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer

HOOKS = Path(".zizou") / "hooks"


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": json.dumps(arguments)}


def run(
    project: Path, home: Path, script: list[dict[str, Any]], *more: str, prompt: str = "go"
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        args = ["-p", prompt, "--model", "openai/test-model", "--api-base", srv.base_url]
        return run_cli([*args, *more], project, home), srv.chat_requests


def hook(project: Path, name: str, text: str) -> Path:
    (project / HOOKS).mkdir(parents=True, exist_ok=True)
    path = project / HOOKS / name
    path.write_text(text)
    return path


def system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def tools(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools", [])]


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


MARKER = """
from pathlib import Path
from zizou.hooks import effect
Path("hook-ran.txt").write_text("ran")
@effect()
def every_step(ctx, step):
    step("systems", {"marker": f"marker {VERSION} at step {ctx.step_number}"})
"""


def test_an_untrusted_hook_does_not_run_trusted_it_runs_every_step_edited_it_asks_again(
    project: Path, zizou_home: Path
) -> None:
    path = hook(project, "marker.py", "VERSION = 1\n" + MARKER)
    script = [{"tool_calls": [call("list_dir", path=".")]}, {"text": "done"}]
    result, requests = run(project, zizou_home, script)
    assert result.code == 0, result.stderr
    assert "--trust-hooks" in result.stderr and ".zizou/hooks/marker.py" in result.stderr
    assert not (project / "hook-ran.txt").exists()
    assert all("marker" not in system(r) for r in requests)

    result, requests = run(project, zizou_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    assert (project / "hook-ran.txt").read_text() == "ran"
    assert [
        "marker 1 at step 1" in system(requests[0]),
        "marker 1 at step 2" in system(requests[1]),
    ] == [True, True]

    (project / "hook-ran.txt").unlink()
    result, requests = run(project, zizou_home, script)  # trusted: runs without the flag
    assert result.code == 0 and "marker 1 at step 2" in system(requests[1])

    path.write_text("VERSION = 2\n" + MARKER)
    (project / "hook-ran.txt").unlink()
    result, requests = run(project, zizou_home, script)
    assert "changed since it was trusted" in result.stderr and "--trust-hooks" in result.stderr
    assert not (project / "hook-ran.txt").exists()
    assert all("marker" not in system(r) for r in requests)


def test_an_effect_with_deps_runs_once_then_again_only_after_its_dependency_changes(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "goal.py",
        """
from zizou.hooks import effect
@effect(deps=lambda ctx: [ctx.task_state["goal"]])
def on_goal(ctx, step):
    pass
""",
    )
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("update_state", merge={"goal": "new goal"})]},
        {"tool_calls": [call("list_dir", path=".")]},
        {"text": "done"},
    ]
    result, _ = run(project, zizou_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    log = (project / "zizou-debug.log").read_text()
    records = log.split("EFFECTS step ")[1:]
    ran = {int(block.split(":")[0]): "goal.py/on_goal" in block for block in records}
    assert ran == {1: True, 3: True}  # steps 2 and 4 ran nothing: no record at all
    assert "(first run)" in log and "(deps changed)" in log


def test_step_tools_narrows_one_request_and_a_hidden_tool_called_anyway_is_refused(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "narrow.py",
        """
from zizou.hooks import effect
@effect()
def read_only_at_two(ctx, step):
    if ctx.step_number == 2:
        step("tools", ["read_file", "list_dir"], why="step two only reads")
""",
    )
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("write_file", path="x.txt", content="no")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script, "--trust-hooks", "--yes")
    assert result.code == 0, result.stderr
    assert "write_file" in tools(requests[0]) and "write_file" in tools(requests[2])
    assert sorted(tools(requests[1])) == ["list_dir", "read_file"]
    refused = tool_results(requests[2])[-1]
    assert "write_file is not offered in this step" in refused
    assert "step two only reads (hook:.zizou/hooks/narrow.py)" in refused
    assert not (project / "x.txt").exists()


def test_a_reminder_is_the_last_message_of_one_request_and_never_stored(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "remind.py",
        """
def render(p):
    rule = p.system("rule", "Keep functions short.")
    if p.ctx.step_number == 2:
        rule.remind()
""",
    )
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("list_dir", path=".")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    last = requests[1]["messages"][-1]
    assert last["role"] == "user"
    assert (
        last["content"]
        == '<reminder source="hook:.zizou/hooks/remind.py">\nKeep functions short.\n</reminder>'
    )
    for request in (requests[0], requests[2]):
        assert all("<reminder" not in str(m.get("content")) for m in request["messages"])
    stored = "".join(p.read_text() for p in (project / ".zizou" / "sessions").glob("*.jsonl"))
    assert "<reminder" not in stored


def test_hook_state_set_in_one_step_is_read_in_the_next_and_after_continue(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "count.py",
        """
from zizou.hooks import effect, def_state
seen, set_seen = def_state("steps", 0)
@effect()
def count(ctx, step):
    set_seen(seen() + 1)
def render(p):
    p.variable("steps_before", seen())
""",
    )
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("list_dir", path=".")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    shown = [system(r).split("<steps_before>\n")[1].split("\n")[0] for r in requests]
    assert shown == ["0", "1", "2"]
    result, requests = run(project, zizou_home, [{"text": "again"}], "-c")
    assert result.code == 0, result.stderr
    assert "<steps_before>\n3\n</steps_before>" in system(requests[0])


def test_a_raising_hook_is_disabled_with_one_warning_and_the_traceback_in_the_log(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "broken.py",
        """
from zizou.hooks import effect
@effect()
def explode(ctx, step):
    raise ZeroDivisionError("hook bug")
""",
    )
    script = [
        {"tool_calls": [call("list_dir", path=".")]},
        {"tool_calls": [call("list_dir", path=".")]},
        {"text": "all done"},
    ]
    result, _ = run(project, zizou_home, script, "--trust-hooks")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "all done"
    warnings = [line for line in result.stderr.splitlines() if "hook bug" in line]
    assert len(warnings) == 1 and "explode" in warnings[0] and "disabled" in warnings[0]
    log = (project / "zizou-debug.log").read_text()
    assert "HOOK-WARNING hook:.zizou/hooks/broken.py/explode" in log
    assert (
        "Traceback (most recent call last)" in log and 'raise ZeroDivisionError("hook bug")' in log
    )


def test_plan_mode_offers_no_write_tool_refuses_writes_under_yes_and_prints_the_plan(
    project: Path, zizou_home: Path
) -> None:
    plan = [
        {"id": "p1", "title": "add the flag", "status": "pending"},
        {"id": "p2", "title": "test it", "status": "pending"},
    ]
    script = [
        {"tool_calls": [call("write_file", path="x.txt", content="no")]},
        {"tool_calls": [call("update_state", merge={"goal": "a flag", "plan": plan})]},
        {"text": "Here is the plan."},
    ]
    result, requests = run(project, zizou_home, script, "--mode", "plan", "--yes")
    assert result.code == 0, result.stderr
    offered = set(tools(requests[0]))
    assert not offered & {"write_file", "edit_file", "replace_window", "delete_file", "run_bash"}
    assert {"read_file", "grep", "update_state"} <= offered
    assert "PLAN MODE is on" in system(requests[0])
    assert (
        "write_file is not offered in this step (plan mode is read-only"
        in tool_results(requests[1])[-1]
    )
    assert not (project / "x.txt").exists()
    assert result.stdout == "Here is the plan.\n\nPlan:\n☐ add the flag\n☐ test it\n"


def test_a_markdown_hook_reminds_after_a_failed_command_with_no_trust_step(
    project: Path, zizou_home: Path
) -> None:
    hook(
        project,
        "after-failure.md",
        """---
when:
  tool_failed: run_bash
do:
  remind: Read the failure before you change anything.
---
""",
    )
    script = [
        {"tool_calls": [call("run_bash", command="true")]},
        {"tool_calls": [call("run_bash", command="exit 3")]},
        {"text": "done"},
    ]
    result, requests = run(project, zizou_home, script, "--yes", "--sandbox", "off")
    assert result.code == 0, result.stderr
    assert "trust" not in result.stderr
    reminders = ["Read the failure" in str(r["messages"][-1]["content"]) for r in requests]
    assert reminders == [False, False, True]
