"""Decks through the real `zizou run` and `zizou -p` against the loopback server, each request
routed by the deck it comes from ("You are the deck NAME" in its system prompt): hello_world,
a project deck as a tool with its input checked, a chain as deep as the guardrail allows and
no deeper, passes, a timeout, `return_output` refused then accepted, bad decks, the trace."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from conftest import CliResult, run_cli
from loopback import LoopbackServer
from waiting import scaled

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DECKS = Path(".zizou") / "decks"
MODEL = ["--model", "openai/test-model"]


def call(tool: str, /, **arguments: Any) -> dict[str, Any]:
    return {"name": tool, "arguments": json.dumps(arguments)}


def by(deck: str, match: str = "", **reply: Any) -> dict[str, Any]:
    """A reply only a request of `deck`'s run takes (and only one that holds `match`)."""
    return {"match": f"(?=.*You are the deck {deck},)(?=.*{match})", **reply}


def main(match: str = "", **reply: Any) -> dict[str, Any]:
    """A reply only the main agent's requests take (they hold no deck context)."""
    return {"match": f"^(?!.*You are the deck )(?=.*{match})", **reply}


def zizou(
    project: Path, home: Path, script: list[dict[str, Any]], *args: str
) -> tuple[CliResult, list[dict[str, Any]]]:
    with LoopbackServer(script) as srv:
        result = run_cli([*args, *MODEL, "--api-base", srv.base_url], project, home)
        return result, srv.chat_requests


def deck_of(request: dict[str, Any]) -> str:
    system = str(request["messages"][0]["content"])
    marker = "You are the deck "
    return system.split(marker, 1)[1].split(",", 1)[0] if marker in system else "main"


def tools(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["function"]["name"]: t["function"] for t in request.get("tools", [])}


def write_deck(project: Path, name: str, front: dict[str, Any], body: str = "Do it.") -> Path:
    (project / DECKS).mkdir(parents=True, exist_ok=True)
    path = project / DECKS / f"{name}.deck.md"
    path.write_text("---\n" + json.dumps(front, indent=1) + "\n---\n" + body + "\n")
    return path


OBJECT_IN = {
    "type": "object",
    "properties": {"topic": {"type": "string"}},
    "required": ["topic"],
    "additionalProperties": False,
}
OBJECT_OUT = {
    "type": "object",
    "properties": {"summary": {"type": "string"}},
    "required": ["summary"],
    "additionalProperties": False,
}


def child(**more: Any) -> dict[str, Any]:
    return {"description": "Sums up a topic.", "input": OBJECT_IN, "output": OBJECT_OUT, **more}


def trace_of(project: Path) -> list[dict[str, Any]]:
    [path] = sorted((project / ".zizou" / "traces").glob("*.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_hello_world_runs_in_three_requests(project: Path, zizou_home: Path) -> None:
    shutil.copytree(EXAMPLES / "hello_world", project / "hello_world")
    script = [
        by("greet", tool_calls=[call("return_output", greeting="Hello, Ada!")]),
        by("root", match="Hello, Ada", text="Hello, Ada!"),
        by("root", tool_calls=[call("greet", name="Ada")]),
    ]
    result, requests = zizou(
        project, zizou_home, script, "run", "hello_world/root.deck.md", "--input", "Ada"
    )
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Hello, Ada!"
    assert [deck_of(r) for r in requests] == ["root", "greet", "root"]
    first_of_child = requests[1]["messages"]
    [reference] = first_of_child[1]["tool_calls"]
    assert reference["function"]["name"] == "zizou_reference_context"
    context = json.loads(first_of_child[2]["content"])
    assert context["input"] == {"name": "Ada"} and context["action"]["name"] == "greet"
    assert context["parentActionCallId"] and context["runId"]
    offered = tools(requests[1])
    assert offered["return_output"]["parameters"]["required"] == ["greeting"]
    assert "greet" in tools(requests[0]) and "return_output" not in tools(requests[0])
    assert any(
        '{"greeting": "Hello, Ada!"}' in str(m.get("content")) for m in requests[2]["messages"]
    )


def test_a_project_deck_is_a_tool_of_p_and_a_bad_input_makes_no_child_request(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "summer", child(tools=[]))
    script = [
        main(match="invalid arguments", tool_calls=[call("summer", topic="decks")]),
        by("summer", tool_calls=[call("return_output", summary="decks are files")]),
        main(match="decks are files", text="Summed up."),
        main(tool_calls=[call("summer", subject="decks")]),
    ]
    result, requests = zizou(project, zizou_home, script, "-p", "sum up decks")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "Summed up."
    assert [deck_of(r) for r in requests] == ["main", "main", "summer", "main"]
    refused = [m for m in requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "topic: is required" in refused and "subject" in refused
    assert tools(requests[0])["summer"]["parameters"] == OBJECT_IN


def chain_deck(project: Path, name: str, next_name: str | None) -> None:
    actions = [{"path": f"{next_name}.deck.md"}] if next_name else []
    write_deck(project, name, child(tools=[], actions=actions))


def test_three_levels_run_and_a_fourth_is_refused_before_any_request(
    project: Path, zizou_home: Path
) -> None:
    for name, after in (("one", "two"), ("two", "three"), ("three", "four"), ("four", None)):
        chain_deck(project, name, after)
    done = {"summary": "ok"}
    script = [
        main(match="ok from one", text="all done"),
        main(tool_calls=[call("one", topic="t")]),
        by("one", match="ok from two", tool_calls=[call("return_output", summary="ok from one")]),
        by("one", tool_calls=[call("two", topic="t")]),
        by("two", match="ok from three", tool_calls=[call("return_output", summary="ok from two")]),
        by("two", tool_calls=[call("three", topic="t")]),
        by(
            "three",
            match="guardrail_depth",
            tool_calls=[call("return_output", summary="ok from three")],
        ),
        by("three", tool_calls=[call("four", topic="t")]),
        by("four", tool_calls=[call("return_output", **done)]),
    ]
    result, requests = zizou(project, zizou_home, script, "-p", "go")
    assert result.code == 0, result.stderr
    decks = [deck_of(r) for r in requests]
    assert decks == ["main", "one", "two", "three", "three", "two", "one", "main"]
    assert "four" not in decks
    refusal = [m for m in requests[4]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "guardrail_depth" in refusal and "depth 4" in refusal
    events = trace_of(project)
    starts = [e for e in events if e["type"] == "action.start"]
    assert [e["depth"] for e in starts] == [1, 2, 3, 4]
    fourth = starts[-1]["actionCallId"]
    ends = [e for e in events if e.get("actionCallId") == fourth and e["type"] != "action.start"]
    assert [(e["type"], e["error"]["code"]) for e in ends] == [("action.end", "guardrail_depth")]


def test_a_child_that_never_returns_fails_after_exactly_its_passes(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "stubborn", child(guardrails={"passes": 2}))
    script = [
        main(match="guardrail_passes", text="it gave up"),
        main(tool_calls=[call("stubborn", topic="t")]),
        by("stubborn", tool_calls=[call("list_dir", path=".")]),
        by("stubborn", tool_calls=[call("glob", pattern="*")]),
        by("stubborn", text="never returning"),
    ]
    result, requests = zizou(project, zizou_home, script, "-p", "go")
    assert result.code == 0, result.stderr
    assert [deck_of(r) for r in requests].count("stubborn") == 2
    assert result.stdout.strip() == "it gave up"


def test_a_slow_child_fails_at_its_timeout_and_the_turn_goes_on(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "slow", child(tools=[], guardrails={"timeout_s": 2}))
    script = [
        main(match="did not finish within", text="moved on"),
        main(tool_calls=[call("slow", topic="t")]),
        by("slow", delay_s=30, tool_calls=[call("return_output", summary="late")]),
    ]
    result, _ = zizou(project, zizou_home, script, "-p", "go")
    assert result.code == 0, result.stderr
    assert result.stdout.strip() == "moved on"
    end = next(e for e in trace_of(project) if e["type"] == "action.end")
    assert end["error"]["code"] == "timeout"
    # The run stops at its timeout, long before the reply would come; bench/decks.py measures
    # how close to it (this machine is shared: no tight bound here).
    assert 2000 <= end["elapsedMs"] < scaled(12) * 1000


def test_an_invalid_return_output_names_the_field_and_a_retry_succeeds(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "picky", child(tools=[]))
    script = [
        main(match="right", text="done"),
        main(tool_calls=[call("picky", topic="t")]),
        by(
            "picky",
            match="summary: is required",
            tool_calls=[call("return_output", summary="right")],
        ),
        by("picky", tool_calls=[call("return_output", summry="wrong")]),
    ]
    result, requests = zizou(project, zizou_home, script, "-p", "go")
    assert result.code == 0, result.stderr
    picky = [r for r in requests if deck_of(r) == "picky"]
    assert len(picky) == 2
    refused = [m for m in picky[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "summary: is required" in refused


BAD_DECKS = {
    "yaml": ("---\nname: [unclosed\n---\nbody\n", ":2:"),
    "noschema": (None, "declares no input schema"),
    "outside": (None, "outside"),
    "unknowntool": ("---\ntools: [read_file, launch_rockets]\n---\nx\n", "launch_rockets"),
    "reserved": ("---\nname: zizou_thing\n---\nx\n", "zizou_"),
    "cycle": (None, "cycle"),
}


def test_each_bad_deck_is_named_by_check_and_p_runs_without_it(
    project: Path, zizou_home: Path
) -> None:
    folder = project / DECKS
    folder.mkdir(parents=True)
    (folder / "yaml.deck.md").write_text(BAD_DECKS["yaml"][0])
    (folder / "plain.deck.md").write_text("---\ndescription: no schemas\n---\nx\n")
    (folder / "noschema.deck.md").write_text("---\nactions: [{path: plain.deck.md}]\n---\nx\n")
    (folder / "outside.deck.md").write_text("---\nactions: [{path: ../../x.deck.md}]\n---\nx\n")
    (project / "x.deck.md").write_text("---\ndescription: out\n---\nx\n")
    (folder / "unknowntool.deck.md").write_text(BAD_DECKS["unknowntool"][0])
    (folder / "reserved.deck.md").write_text(BAD_DECKS["reserved"][0])
    (folder / "a.card.md").write_text("---\nembeds: [b.card.md]\n---\na\n")
    (folder / "b.card.md").write_text("---\nembeds: [a.card.md]\n---\nb\n")
    (folder / "cycle.deck.md").write_text("---\nembeds: [a.card.md]\n---\nx\n")
    checked = run_cli(["decks", "check"], project, zizou_home)
    assert checked.code == 1, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    for name, (_, needle) in BAD_DECKS.items():
        mine = [
            line
            for line in lines
            if f"{name}.deck.md:" in line or (name == "cycle" and "cycle" in line)
        ]
        assert mine, (name, lines)
        assert any(needle in line for line in mine), (name, mine)
        assert all(line.split(":")[1].isdigit() for line in mine), mine
    result, requests = zizou(project, zizou_home, [{"text": "fine"}], "-p", "hi")
    assert result.code == 0 and result.stdout.strip() == "fine"
    assert "a deck was left out" in result.stderr and "yaml.deck.md" in result.stderr
    assert not {"yaml", "reserved", "cycle", "outside"} & set(tools(requests[0]))


def test_the_trace_runs_start_to_end_without_transcripts_and_stream_json_prints_it(
    project: Path, zizou_home: Path
) -> None:
    shutil.copytree(EXAMPLES / "hello_world", project / "hello_world")
    secret_text = "a greeting nobody should find in a trace"
    script = [
        by("greet", tool_calls=[call("return_output", greeting=secret_text)]),
        by("root", match="nobody should", text=secret_text),
        by("root", tool_calls=[call("greet", name="Ada")]),
    ]
    result, _ = zizou(
        project,
        zizou_home,
        script,
        "run",
        "hello_world/root.deck.md",
        "--input",
        "Ada",
        "--output-format",
        "stream-json",
    )
    assert result.code == 0, result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    assert printed[-1]["type"] == "result" and printed[-1]["result"] == secret_text
    events = trace_of(project)
    assert printed[:-1] == events
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    assert len({e["runId"] for e in events}) == 1
    starts = {e["actionCallId"] for e in events if e["type"] == "action.start"}
    ends = {e["actionCallId"] for e in events if e["type"] == "action.end"}
    assert starts == ends and len(starts) == 2
    parents = {e["parentActionCallId"] for e in events if e["type"] == "action.start"}
    assert parents - {None} <= starts
    trace_text = (project / ".zizou" / "traces").glob("*.jsonl").__next__().read_text()
    assert secret_text not in trace_text and "Ada" not in trace_text
    shown = run_cli(["trace", events[0]["runId"]], project, zizou_home)
    assert shown.code == 0 and "action.start greet (depth 2)" in shown.stdout


COUNT_5 = r'count\\": 5'  # in the request's JSON text, the state's quotes are escaped


def test_zizou_run_keeps_a_decks_state_in_the_state_file(project: Path, zizou_home: Path) -> None:
    state = {
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
        "additionalProperties": False,
    }
    write_deck(project, "counter", child(tools=["update_state"], state=state))
    script = [
        by("counter", match=COUNT_5, tool_calls=[call("return_output", summary="5")]),
        by("counter", tool_calls=[call("update_state", merge={"count": 5})]),
    ]
    args = ["run", "counter", "--input", '{"topic": "t"}', "--state", "state.json"]
    result, requests = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout) == {"summary": "5"}
    assert json.loads((project / "state.json").read_text()) == {"count": 5}
    assert '"count": 0' in requests[0]["messages"][0]["content"]  # the TASK STATE it started from
    script = [by("counter", match=COUNT_5, tool_calls=[call("return_output", summary="5")])]
    result, _ = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr


def test_zizou_run_exit_codes_follow_p(project: Path, zizou_home: Path) -> None:
    write_deck(project, "summer", child(tools=[], guardrails={"passes": 1}))
    bad, requests = zizou(project, zizou_home, [], "run", "summer", "--input", '{"x": 1}')
    assert bad.code == 2 and "topic: is required" in bad.stderr and requests == []
    notjson, _ = zizou(project, zizou_home, [], "run", "summer", "--input", "plain words")
    assert notjson.code == 2 and "not valid JSON" in notjson.stderr
    unknown, _ = zizou(project, zizou_home, [], "run", "nosuch")
    assert unknown.code == 2 and "summer" in unknown.stderr
    script = [by("summer", tool_calls=[call("list_dir", path=".")])]
    spent, _ = zizou(project, zizou_home, script, "run", "summer", "--input", '{"topic": "t"}')
    assert spent.code == 3 and "guardrail_passes" in spent.stderr
    script = [by("summer", tool_calls=[call("fail", message="cannot", code="nope")])]
    failed, _ = zizou(
        project,
        zizou_home,
        script,
        "run",
        "summer",
        "--input",
        '{"topic": "t"}',
        "--output-format",
        "json",
    )
    assert failed.code == 1
    result = json.loads(failed.stdout)
    assert result["subtype"] == "error" and result["error"] == {"code": "nope", "message": "cannot"}


SAID = {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]}


def handled_parent(project: Path, kind: str, child_front: dict[str, Any]) -> None:
    write_deck(project, "child", child(tools=[], **child_front))
    write_deck(
        project,
        "handler",
        {"description": "Explains.", "input": {"type": "object"}, "output": SAID, "tools": []},
    )
    write_deck(
        project,
        "parent",
        child(
            tools=[],
            actions=[{"path": "child.deck.md", "activity": "summing_up"}],
            handlers={kind: "handler.deck.md"},
            suspense_delay_ms=300,
        ),
    )


def test_a_failing_child_is_explained_by_the_handler_to_its_parent(
    project: Path, zizou_home: Path
) -> None:
    handled_parent(project, "on_error", {})
    script = [
        by("parent", match="zizou_error_event", tool_calls=[call("return_output", summary="ok")]),
        by("parent", tool_calls=[call("child", topic="t")]),
        by("child", tool_calls=[call("fail", message="no sources", code="empty")]),
        by("handler", tool_calls=[call("return_output", message="nothing to read")]),
    ]
    result, requests = zizou(
        project, zizou_home, script, "run", "parent", "--input", '{"topic": "t"}'
    )
    assert result.code == 0, result.stderr
    assert [deck_of(r) for r in requests] == ["parent", "child", "handler", "parent"]
    sent = json.loads(requests[2]["messages"][-1]["content"])
    assert sent == {
        "kind": "error",
        "activity": "summing_up",
        "source": {"deckPath": ".zizou/decks/child.deck.md", "actionName": "child"},
        "error": {"message": "no sources", "code": "empty", "details": {}},
        "childInput": {"topic": "t"},
    }
    history = requests[3]["messages"]
    [event] = [m for m in history if m.get("tool_calls")][-1]["tool_calls"]
    assert event["function"]["name"] == "zizou_error_event"
    assert json.loads(history[-1]["content"])["message"] == "nothing to read"


def test_a_slow_child_fires_one_suspense_event_a_fast_one_none(
    project: Path, zizou_home: Path
) -> None:
    handled_parent(project, "on_suspense", {})
    script = [
        by(
            "parent", match="zizou_suspense_event", tool_calls=[call("return_output", summary="ok")]
        ),
        by("parent", tool_calls=[call("child", topic="t")]),
        by("child", delay_s=2, tool_calls=[call("return_output", summary="slow")]),
        by("handler", tool_calls=[call("return_output", message="still reading the sources")]),
    ]
    args = ["run", "parent", "--input", '{"topic": "t"}', "--output-format", "stream-json"]
    result, requests = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr
    printed = [json.loads(line) for line in result.stdout.splitlines()]
    [suspense] = [e for e in printed if e["type"] == "suspense"]
    assert suspense["elapsedMs"] >= 300 and suspense["handler"] == "handler"
    last = requests[-1]["messages"]
    assert json.loads(last[-1]["content"])["message"] == "still reading the sources"

    write_deck(
        project,
        "parent",
        child(
            tools=[],
            actions=[{"path": "child.deck.md"}],
            handlers={"on_suspense": "handler.deck.md"},
            suspense_delay_ms=10000,
        ),
    )
    script = [
        by("parent", match="ok from child", tool_calls=[call("return_output", summary="ok")]),
        by("parent", tool_calls=[call("child", topic="t")]),
        by("child", tool_calls=[call("return_output", summary="ok from child")]),
    ]
    result, requests = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr
    assert "suspense" not in [json.loads(line)["type"] for line in result.stdout.splitlines()]
    assert [deck_of(r) for r in requests] == ["parent", "child", "parent"]


def test_two_deck_calls_of_one_step_run_side_by_side_results_in_call_order(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "first", child(tools=[]))
    write_deck(project, "second", child(tools=[]))
    script = [
        main(match="from second", text="both done"),
        main(tool_calls=[call("first", topic="a"), call("second", topic="b")]),
        by("first", delay_s=1, tool_calls=[call("return_output", summary="from first")]),
        by("second", delay_s=1, tool_calls=[call("return_output", summary="from second")]),
    ]
    result, requests = zizou(project, zizou_home, script, "-p", "go")
    assert result.code == 0, result.stderr
    results = [m for m in requests[-1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"])["summary"] for m in results] == ["from first", "from second"]
    # Each call is a run with a trace of its own: the second began before the first ended.
    runs = [
        {e["type"]: e["ts"] for e in map(json.loads, path.read_text().splitlines())}
        for path in (project / ".zizou" / "traces").glob("*.jsonl")
    ]
    assert len(runs) == 2
    assert max(run["run.start"] for run in runs) < min(run["run.end"] for run in runs)


def compute_deck(project: Path, name: str, run_body: str, **fields: Any) -> Path:
    """`NAME.deck.py`: a compute deck (string input, OBJECT_OUT) whose `run` is `run_body`."""
    (project / DECKS).mkdir(parents=True, exist_ok=True)
    options = {"input": "string", "output": OBJECT_OUT, **fields}
    args = ", ".join(f"{key}={value!r}" for key, value in options.items())
    body = "\n".join("    " + line for line in run_body.strip().splitlines())
    path = project / DECKS / f"{name}.deck.py"
    path.write_text(
        "import os\nfrom zizou.decks.api import Deck\n\n"
        f"DECK = Deck(name={name!r}, description='Computes.', mode='compute', {args})\n\n"
        f"async def run(input, ctx):\n{body}\n"
    )
    return path


def test_a_compute_deck_spawns_a_model_deck_and_returns_its_output(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "summer", child(tools=[]))
    compute_deck(
        project,
        "boss",
        'out = await ctx.spawn_and_wait("summer", {"topic": input})\n'
        'return {"summary": out["summary"] + "!"}',
    )
    script = [by("summer", tool_calls=[call("return_output", summary="short")])]
    args = ["run", "boss", "--input", "decks", "--trust-hooks", "--output-format", "json"]
    result, requests = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == {"summary": "short!"}
    [request] = requests  # the compute deck itself makes no model request
    assert deck_of(request) == "summer"
    assert json.loads(request["messages"][-1]["content"]) == {"topic": "decks"}
    kinds = [event["type"] for event in trace_of(project)]
    assert kinds[0] == "run.start" and kinds[-1] == "run.end"
    assert kinds.count("deck.start") == kinds.count("deck.end") == 2


def test_a_compute_deck_that_loops_is_killed_at_its_timeout_and_the_turn_goes_on(
    project: Path, zizou_home: Path
) -> None:
    pid_file = project / "worker.pid"
    compute_deck(
        project,
        "spinner",
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\nwhile True:\n    pass",
        guardrails={"timeout_s": 1},
    )
    script = [
        main(match="did not finish within", text="It timed out."),
        main(tool_calls=[call("spinner", input="x")]),
    ]
    args = ["-p", "spin", "--trust-hooks", "--sandbox", "off", "--output-format", "json"]
    result, requests = zizou(project, zizou_home, script, *args)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["result"] == "It timed out."
    error = requests[-1]["messages"][-1]["content"]
    assert "spinner did not finish within 1 s" in error
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists(), "the worker outlived its run"


def test_a_card_adds_prompt_text_and_an_action_and_the_decks_own_action_wins(
    project: Path, zizou_home: Path
) -> None:
    write_deck(project, "lookup", child(tools=[], description="The card's lookup."))
    write_deck(project, "mine", child(tools=[], description="The deck's own."))
    (project / DECKS / "helpers.card.md").write_text(
        "---\nactions:\n  - {path: lookup.deck.md}\n  - {path: lookup.deck.md, name: mine}\n"
        "---\nAlways cite the card.\n"
    )
    write_deck(
        project,
        "boss",
        child(tools=[], embeds=["helpers.card.md"], actions=[{"path": "mine.deck.md"}]),
        "Boss body.",
    )
    script = [by("boss", tool_calls=[call("return_output", summary="done")])]
    result, [request] = zizou(
        project, zizou_home, script, "run", "boss", "--input", '{"topic": "t"}'
    )
    assert result.code == 0, result.stderr
    system = str(request["messages"][0]["content"])
    assert system.index("Boss body.") < system.index("Always cite the card.")
    offered = tools(request)
    assert offered["lookup"]["description"].startswith("The card's lookup.")
    assert offered["mine"]["description"].startswith("The deck's own.")
