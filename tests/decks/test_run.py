"""A deck's run on the core loop, in a session built as the front ends build it (scripted
model, real files): guardrails, the ways a run ends, what flows up, what the child may do."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from zizou.agent.guards import GuardSettings
from zizou.agent.permissions import Rules
from zizou.config.options import RunOptions
from zizou.contracts.events import Nested, PermissionDecided, ToolCallFinished, TurnFinished
from zizou.contracts.protocols import Approval, PermissionRequest
from zizou.decks.display import INTO, nested_line
from zizou.decks.run import MAX_DECK_TOOLS, NUDGE
from zizou.decks.tools import Caller, action_of, input_from_text
from zizou.errors import UsageError
from zizou.providers.fake import ScriptedModel
from zizou.session.assembly import build_session
from zizou.session.kernel import Session
from zizou.session.unattended import HeadlessApprover

IN = {"type": "object", "properties": {"topic": {"type": "string"}}, "required": ["topic"]}
OUT = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}


def deck(root: Path, name: str, body: str = "Sum it up.", **front: Any) -> None:
    folder = root / ".zizou" / "decks"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"description": f"The {name} deck.", "input": IN, "output": OUT, **front}
    (folder / f"{name}.deck.md").write_text(f"---\n{json.dumps(front)}\n---\n{body}\n")


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": arguments}


def session(root: Path, model: ScriptedModel, approver: Any = None, **options: Any) -> Session:
    opts = RunOptions(root=root, debug_log=False, **options)
    return build_session(opts, model, approver or HeadlessApprover(), persist=False)


async def run(runtime: Session, name: str, value: Any, nest: Any = None) -> Any:
    env = runtime.decks
    assert env is not None
    found = env.decks.get(name)
    assert found is not None, env.decks.problems
    return await env.call(found, action_of(found), value, Caller(), nest)


async def test_return_output_ends_the_run_with_the_output(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel([{"tool_calls": [call("return_output", summary="short")]}])
    outcome = await run(session(tmp_path, model), "summer", {"topic": "t"})
    assert (outcome.ok, outcome.output) == (True, {"summary": "short"})
    [request] = model.requests
    assert "You are the deck summer" in request.system and "Sum it up." in request.system
    assert request.messages[-1] == {"role": "user", "content": '{"topic": "t"}'}
    assert [t["function"]["name"] for t in request.tools] == ["return_output", "fail"]


async def test_a_text_answer_is_asked_again_for_the_output_while_passes_remain(
    tmp_path: Path,
) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel(
        [{"text": "here is a summary"}, {"tool_calls": [call("return_output", summary="s")]}]
    )
    outcome = await run(session(tmp_path, model), "summer", {"topic": "t"})
    assert outcome.ok and outcome.output == {"summary": "s"}
    assert model.requests[1].messages[-1]["content"] == NUDGE


async def test_passes_count_every_model_call_nudges_included(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[], guardrails={"passes": 3})
    model = ScriptedModel([{"text": f"no {n}"} for n in range(5)])
    outcome = await run(session(tmp_path, model), "summer", {"topic": "t"})
    assert outcome.code == "guardrail_passes" and "3 model calls" in outcome.message
    assert len(model.requests) == 3


async def test_fail_ends_the_run_with_its_code(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel([{"tool_calls": [call("fail", message="no such topic", code="nope")]}])
    outcome = await run(session(tmp_path, model), "summer", {"topic": "t"})
    assert (outcome.ok, outcome.code, outcome.message) == (False, "nope", "no such topic")
    assert outcome.result("summer").output == "the deck summer failed (nope): no such topic"


async def test_a_string_deck_answers_with_its_text(tmp_path: Path) -> None:
    deck(tmp_path, "echo", tools=[], input={"type": "string"}, output={"type": "string"})
    model = ScriptedModel([{"text": "echoed"}])
    outcome = await run(session(tmp_path, model), "echo", "hello")
    assert (outcome.ok, outcome.output) == (True, "echoed")
    assert model.requests[0].messages[-1]["content"] == "hello"
    assert "return_output" not in [t["function"]["name"] for t in model.requests[0].tools]


async def test_an_input_the_schema_refuses_makes_no_request(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel([])
    outcome = await run(session(tmp_path, model), "summer", {"subject": "t"})
    assert outcome.code == "invalid_input" and "topic: is required" in outcome.message
    assert model.requests == []


async def test_the_turn_cap_on_model_calls_holds_for_decks(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel([{"text": "x"}] * 5)
    runtime = session(tmp_path, model, guards=GuardSettings(max_model_calls_per_turn=2))
    assert runtime.decks is not None
    outcome = await run(runtime, "summer", {"topic": "t"})
    assert outcome.code == "guardrail_budget" and len(model.requests) == 2
    assert "max_model_calls_per_turn" in outcome.message
    runtime.decks.begin_turn("next", [])  # the main agent's next turn: a new count
    assert runtime.decks.deck_calls.used == 0 and runtime.spending.turn_calls == 0


async def test_the_main_agent_and_its_decks_share_the_turns_model_calls(tmp_path: Path) -> None:
    deck(tmp_path, "summer", tools=[])
    model = ScriptedModel(
        [
            {"tool_calls": [call("summer", topic="a")]},  # the main agent: call 1
            {"text": "thinking"},  # the deck: 2, 3 (asked again for its output)
            {"text": "still thinking"},
            {"text": "never sent"},
        ]
    )
    runtime = session(tmp_path, model, guards=GuardSettings(max_model_calls_per_turn=3))
    events = [event async for event in runtime.agent.run_turn("sum it up")]
    finished = events[-1]
    assert isinstance(finished, TurnFinished) and finished.reason == "loop_guard"
    assert "3 model calls" in (finished.message or "") and len(model.requests) == 3
    [result] = [e for e in events if isinstance(e, ToolCallFinished) and e.name == "summer"]
    assert not result.ok and "guardrail_budget" in result.output


async def test_the_childs_events_flow_up_with_their_chain(tmp_path: Path) -> None:
    deck(tmp_path, "inner", tools=["list_dir"])
    deck(tmp_path, "outer", tools=[], actions=[{"path": "inner.deck.md"}])
    (tmp_path / "a.txt").write_text("a")
    model = ScriptedModel(
        [
            {"tool_calls": [call("inner", topic="t")]},
            {"tool_calls": [call("list_dir", path=".")]},
            {"tool_calls": [call("return_output", summary="inner done")]},
            {"tool_calls": [call("return_output", summary="outer done")]},
        ]
    )
    seen: list[Nested] = []
    outcome = await run(session(tmp_path, model), "outer", {"topic": "t"}, seen.append)
    assert outcome.output == {"summary": "outer done"}
    finished = [(n.chain, n.event.name) for n in seen if isinstance(n.event, ToolCallFinished)]
    assert finished == [
        (("outer", "inner"), "list_dir"),
        (("outer", "inner"), "return_output"),
        (("outer",), "inner"),
        (("outer",), "return_output"),
    ]
    lines = [nested_line(n) for n in seen]
    assert f"outer{INTO}inner{INTO}list_dir ." in lines
    assert all(not isinstance(n.event, TurnFinished) or n.chain for n in seen)


class Recording:
    def __init__(self, verdict: str = "deny") -> None:
        self.asked: list[PermissionRequest] = []
        self.verdict = verdict

    async def ask(self, request: PermissionRequest) -> Approval:
        self.asked.append(request)
        return Approval(self.verdict)  # type: ignore[arg-type]


async def test_a_childs_command_asks_the_parents_approver(tmp_path: Path) -> None:
    deck(tmp_path, "runner", tools=["run_bash"], guardrails={"passes": 4})
    model = ScriptedModel(
        [
            {"tool_calls": [call("run_bash", command="echo hi > made.txt")]},
            {"tool_calls": [call("return_output", summary="refused")]},
        ]
    )
    approver = Recording("deny")
    seen: list[Nested] = []
    outcome = await run(session(tmp_path, model, approver), "runner", {"topic": "t"}, seen.append)
    assert outcome.ok and [r.summary for r in approver.asked] == ["echo hi > made.txt"]
    assert not (tmp_path / "made.txt").exists()
    decided = [n.event for n in seen if isinstance(n.event, PermissionDecided)]
    assert decided and decided[0].verdict == "deny"


async def test_a_childs_command_follows_the_parents_rules(tmp_path: Path) -> None:
    deck(tmp_path, "runner", tools=["run_bash"], guardrails={"passes": 4})
    model = ScriptedModel(
        [
            {"tool_calls": [call("run_bash", command="echo hi > made.txt")]},
            {"tool_calls": [call("return_output", summary="ran")]},
        ]
    )
    approver = Recording("deny")
    runtime = session(tmp_path, model, approver, rules=Rules(yes=True), sandbox="off")
    outcome = await run(runtime, "runner", {"topic": "t"})
    assert outcome.ok and approver.asked == []
    assert (tmp_path / "made.txt").read_text().strip() == "hi"


async def test_plan_mode_refuses_a_deck_that_writes_but_runs_one_that_reads(
    tmp_path: Path,
) -> None:
    deck(tmp_path, "writer", tools=["write_file"])
    deck(tmp_path, "reader", tools=["read_file"])
    runtime = session(tmp_path, ScriptedModel([]), mode="plan")
    tools = {tool.name: tool for tool in runtime.agent.runner.registry}
    assert tools["writer"].access_kind == "write" and tools["reader"].access_kind == "read"
    assert runtime.agent.runner._not_read_only(tools["writer"]) is not None
    assert runtime.agent.runner._not_read_only(tools["reader"]) is None


async def test_a_deck_stops_at_its_timeout(tmp_path: Path) -> None:
    deck(tmp_path, "slow", tools=[], guardrails={"timeout_s": 0.3})
    model = ScriptedModel([{"delay_s": 30, "text": "late"}])
    outcome = await asyncio.wait_for(run(session(tmp_path, model), "slow", {"topic": "t"}), 20)
    assert outcome.code == "timeout" and "0.3 s" in outcome.message


async def test_the_decks_are_tools_of_the_main_agent_or_one_catalogue_beyond_twenty(
    tmp_path: Path,
) -> None:
    deck(tmp_path, "summer", tools=[])
    runtime = session(tmp_path, ScriptedModel([]))
    names = runtime.agent.runner.registry.names()
    assert {"summer", "explore", "review"} <= set(names) and "call_deck" not in names
    for n in range(MAX_DECK_TOOLS):
        deck(tmp_path, f"d{n:02}", tools=[])
    model = ScriptedModel(
        [
            {"tool_calls": [call("call_deck", name="d07", input={"topic": "t"})]},
            {"tool_calls": [call("return_output", summary="seven")]},
            {"text": "done"},
        ]
    )
    runtime = session(tmp_path, model)
    names = runtime.agent.runner.registry.names()
    assert "call_deck" in names and "d07" not in names
    events = [event async for event in runtime.agent.run_turn("go")]
    [result] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert result.ok and json.loads(result.output) == {"summary": "seven"}
    assert "- d07: The d07 deck." in model.requests[0].tools[-1]["function"]["description"]


def test_input_from_text_reads_json_for_objects_and_text_for_strings(tmp_path: Path) -> None:
    deck(tmp_path, "summer")
    deck(tmp_path, "echo", input={"type": "string"}, output={"type": "string"})
    runtime = session(tmp_path, ScriptedModel([]))
    assert runtime.decks is not None
    summer, echo = runtime.decks.decks.get("summer"), runtime.decks.decks.get("echo")
    assert summer is not None and echo is not None
    assert input_from_text(summer, '{"topic": "x"}') == {"topic": "x"}
    assert input_from_text(echo, "plain words") == "plain words"
    assert input_from_text(echo, '"quoted"') == "quoted"
    with pytest.raises(UsageError, match=re.escape('such as {"topic": "..."}')):
        input_from_text(summer, "not json")


async def test_a_root_state_is_not_a_childs(tmp_path: Path) -> None:
    from zizou.contracts.schema_ts import TaskSchema
    from zizou.contracts.task_state import TaskState

    state = {"type": "object", "properties": {"note": {"type": "string"}}}
    deck(tmp_path, "inner", tools=["update_state"])
    deck(tmp_path, "outer", tools=[], actions=[{"path": "inner.deck.md"}], state=state)
    model = ScriptedModel(
        [
            {"tool_calls": [call("inner", topic="t")]},
            {"tool_calls": [call("update_state", merge={"note": "from inner"})]},
            {"tool_calls": [call("return_output", summary="i")]},
            {"tool_calls": [call("return_output", summary="o")]},
        ]
    )
    runtime = session(tmp_path, model)
    assert runtime.decks is not None
    outer = runtime.decks.decks.get("outer")
    assert outer is not None and outer.state_schema is not None
    task = TaskState(TaskSchema(outer.state_schema, "outer"))
    task.apply_merge({"note": "the root's"}, "user")
    outcome = await runtime.decks.call(
        outer, action_of(outer), {"topic": "t"}, Caller(state=task), None
    )
    assert outcome.ok and task.value == {"note": "the root's"}
    assert "the root's" in model.requests[0].system and "the root's" not in model.requests[1].system


async def test_a_text_output_is_checked_against_its_schema(tmp_path: Path) -> None:
    verdict = {"type": "string", "enum": ["yes", "no"]}
    deck(tmp_path, "judge", tools=[], output=verdict)
    model = ScriptedModel([{"text": "maybe so"}, {"text": "yes"}])
    outcome = await run(session(tmp_path, model), "judge", {"topic": "t"})
    assert (outcome.ok, outcome.output) == (True, "yes")
    assert "does not fit this deck's output schema" in model.requests[1].messages[-1]["content"]
    model = ScriptedModel([{"text": "maybe"}] * 3)
    outcome = await run(session(tmp_path, model), "judge", {"topic": "t"})
    assert outcome.code == "invalid_output" and outcome.details == {"fields": ["input"]}


async def test_after_return_output_nothing_else_of_the_step_runs(tmp_path: Path) -> None:
    deck(tmp_path, "quick", tools=["list_dir"])
    model = ScriptedModel(
        [
            {
                "tool_calls": [
                    call("return_output", summary="first"),
                    call("list_dir", path="."),
                    call("return_output", summary="second"),
                    call("fail", message="too late"),
                ]
            }
        ]
    )
    seen: list[Nested] = []
    outcome = await run(session(tmp_path, model), "quick", {"topic": "t"}, seen.append)
    assert (outcome.ok, outcome.output) == (True, {"summary": "first"})
    results = [(n.event.name, n.event.ok) for n in seen if isinstance(n.event, ToolCallFinished)]
    assert results == [
        ("return_output", True),
        ("list_dir", False),
        ("return_output", False),
        ("fail", False),
    ]


async def test_a_decks_fail_code_cannot_pose_as_zizous(tmp_path: Path) -> None:
    deck(tmp_path, "liar", tools=[])
    model = ScriptedModel([{"tool_calls": [call("fail", message="x", code="guardrail_passes")]}])
    outcome = await run(session(tmp_path, model), "liar", {"topic": "t"})
    assert outcome.code == "deck_guardrail_passes"


async def test_always_allowed_in_a_deck_holds_for_the_main_agent(tmp_path: Path) -> None:
    deck(tmp_path, "runner", tools=["run_bash"], guardrails={"passes": 4})
    model = ScriptedModel(
        [
            {"tool_calls": [call("run_bash", command="echo hi")]},
            {"tool_calls": [call("return_output", summary="ran")]},
        ]
    )
    runtime = session(tmp_path, model, Recording("always"), sandbox="off")
    assert (await run(runtime, "runner", {"topic": "t"})).ok
    assert "echo" in runtime.agent.runner.rules.bash_prefixes


async def test_call_deck_in_plan_mode_runs_a_deck_that_reads_and_refuses_one_that_writes(
    tmp_path: Path,
) -> None:
    for n in range(MAX_DECK_TOOLS):
        deck(tmp_path, f"r{n:02}", tools=["read_file"])
    deck(tmp_path, "writer", tools=["write_file"])
    model = ScriptedModel(
        [
            {"tool_calls": [call("call_deck", name="writer", input={"topic": "t"})]},
            {"tool_calls": [call("call_deck", name="r03", input={"topic": "t"})]},
            {"tool_calls": [call("return_output", summary="read")]},
            {"text": "done"},
        ]
    )
    runtime = session(tmp_path, model, mode="plan")
    events = [event async for event in runtime.agent.run_turn("go")]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert not finished[0].ok and "writes, and is not run now" in finished[0].output
    assert finished[1].ok and json.loads(finished[1].output) == {"summary": "read"}
