"""Deck run traces: real files in a scratch project, read back by `zizou trace`."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from zizou.commands.trace import describe, trace
from zizou.decks.trace import (
    TRACES_DIR,
    Trace,
    new_run_id,
    prune_traces,
    read_trace,
    trace_ids,
)
from zizou.errors import UsageError
from zizou.redact import Redactor

HOSTILE_IDS = ["../../etc/passwd", "..", "a/b", "ABC", "x" * 65, "", "run\x1b[31m", "a.jsonl"]


def traces(root: Path) -> Path:
    return root / TRACES_DIR


def lines_of(root: Path, run_id: str) -> list[dict[str, Any]]:
    text = (traces(root) / f"{run_id}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def hello_run(root: Path, run_id: str, *, fail: bool = False) -> None:
    """The events of a root deck that calls one child action, `greet`."""
    with Trace(root, run_id) as run:
        run.event("run.start", deckPath="examples/hello_world/root.deck.md")
        run.event("deck.start", deckPath="examples/hello_world/root.deck.md")
        call = {"actionCallId": "a1", "actionName": "greet", "deckPath": "greet.deck.md"}
        run.event("action.start", **call, depth=1, activity="greet")
        run.event("deck.start", actionCallId="a1", deckPath="greet.deck.md")
        run.event("model.request", actionCallId="a1", model="test-model")
        run.event("model.response", actionCallId="a1", model="test-model", elapsedMs=80)
        if fail:
            error = {"code": "timeout", "message": "greet ran past 120s"}
            run.event("action.end", **call, ok=False, error=error, elapsedMs=120000)
            run.event("run.end", ok=False, error=error, elapsedMs=120500)
        else:
            run.event("action.end", **call, ok=True, elapsedMs=1200)
            run.event("run.end", ok=True, elapsedMs=1300)


def run_trace(root: Path, *args: str) -> Result:
    return CliRunner().invoke(trace, [*args, "-C", str(root)])


# Writing.


def test_events_are_lines_with_one_run_id_in_a_private_file(tmp_path: Path) -> None:
    run_id = new_run_id()
    seen: list[dict[str, Any]] = []
    with Trace(tmp_path, run_id, sink=seen.append) as run:
        first = run.event("run.start", deckPath="root.deck.md")
        run.event("action.start", actionCallId="a1", actionName="greet", depth=1)
        run.event("run.end", ok=True, elapsedMs=5)
    lines = lines_of(tmp_path, run_id)
    assert [line["type"] for line in lines] == ["run.start", "action.start", "run.end"]
    assert {line["runId"] for line in lines} == {run_id}
    assert lines == seen
    assert first == lines[0]
    assert lines[0]["ts"].endswith("Z")
    assert lines[1]["actionName"] == "greet"
    assert run.problem is None
    path = traces(tmp_path) / f"{run_id}.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(traces(tmp_path).stat().st_mode) == 0o700


def test_run_ids_are_file_safe_and_a_fixed_field_cannot_be_overridden(tmp_path: Path) -> None:
    run_id = new_run_id()
    assert all(ch in "0123456789abcdefghijklmnopqrstuvwxyz-" for ch in run_id)
    with Trace(tmp_path, run_id) as run:
        event = run.event("tool.call", runId="other", ts="then", tool="read_file")
    assert event["runId"] == run_id
    assert event["ts"] != "then"


def test_an_existing_trace_is_never_overwritten(tmp_path: Path) -> None:
    hello_run(tmp_path, "run-1")
    before = (traces(tmp_path) / "run-1.jsonl").read_bytes()
    seen: list[dict[str, Any]] = []
    with Trace(tmp_path, "run-1", sink=seen.append) as run:
        run.event("run.start", deckPath="other.deck.md")
    assert (traces(tmp_path) / "run-1.jsonl").read_bytes() == before
    assert run.problem is not None
    assert [event["type"] for event in seen] == ["run.start"]


@pytest.mark.parametrize("linked", [".zizou", ".zizou/traces"])
def test_a_symlinked_folder_is_refused_and_the_sink_still_gets_events(
    tmp_path: Path, linked: str
) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (root / linked).parent.mkdir(parents=True, exist_ok=True)
    (root / linked).symlink_to(outside)
    seen: list[dict[str, Any]] = []
    run = Trace(root, "run-1", sink=seen.append)
    run.event("run.start", deckPath="root.deck.md")
    run.event("run.end", ok=True)
    run.close()
    assert [event["type"] for event in seen] == ["run.start", "run.end"]
    assert run.problem is not None
    assert "trace of this run is off" in run.problem
    assert list(outside.rglob("*")) == []


def test_a_fifo_in_place_of_the_trace_is_refused(tmp_path: Path) -> None:
    traces(tmp_path).mkdir(parents=True)
    os.mkfifo(traces(tmp_path) / "run-1.jsonl")
    run = Trace(tmp_path, "run-1")
    run.event("run.start")
    assert run.problem is not None


def test_the_file_is_bounded_and_later_events_go_to_the_sink_only(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with Trace(tmp_path, "run-1", sink=seen.append, max_bytes=4000) as run:
        for index in range(100):
            run.event("tool.call", actionCallId="a1", tool="read_file", index=index)
    lines = lines_of(tmp_path, "run-1")
    assert (traces(tmp_path) / "run-1.jsonl").stat().st_size <= 4000
    assert lines[-1]["type"] == "trace.truncated"
    assert lines[-1]["maxBytes"] == 4000
    assert [line["type"] for line in lines[:-1]] == ["tool.call"] * (len(lines) - 1)
    assert 1 < len(lines) < 100
    assert len(seen) == 100
    assert run.problem is None


def test_long_strings_are_cut_everywhere(tmp_path: Path) -> None:
    with Trace(tmp_path, "run-1") as run:
        error = {"code": "tool_error", "message": "x" * 2000, "details": {"out": ["y" * 900]}}
        run.event("action.end", ok=False, error=error, activity="z" * 501)
    (line,) = lines_of(tmp_path, "run-1")
    assert len(line["error"]["message"]) == 500
    assert line["error"]["message"].endswith("…")
    assert len(line["error"]["details"]["out"][0]) == 500
    assert len(line["activity"]) == 500
    assert line["error"]["code"] == "tool_error"


def test_strings_are_redacted_in_the_file_and_the_sink(tmp_path: Path) -> None:
    secret = "sk-live-0123456789abcdef0123"
    redactor = Redactor([secret])
    seen: list[dict[str, Any]] = []
    with Trace(tmp_path, "run-1", sink=seen.append, redact=redactor.redact) as run:
        run.event("error", message=f"bad key {secret}", error={"details": [secret]})
    text = (traces(tmp_path) / "run-1.jsonl").read_text(encoding="utf-8")
    assert secret not in text
    assert secret not in json.dumps(seen)
    assert "[REDACTED]" in seen[0]["message"]


def test_events_from_threads_stay_whole_lines(tmp_path: Path) -> None:
    with Trace(tmp_path, "run-1") as run:

        def burst(name: str) -> None:
            for index in range(50):
                run.event("tool.call", actionCallId=name, tool="grep", index=index)

        workers = [threading.Thread(target=burst, args=(f"a{n}",)) for n in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
    lines = lines_of(tmp_path, "run-1")
    assert len(lines) == 200
    assert sorted(line["index"] for line in lines if line["actionCallId"] == "a2") == [*range(50)]


def test_a_failing_redactor_withholds_the_value(tmp_path: Path) -> None:
    def broken(text: str) -> str:
        raise RuntimeError(text)

    with Trace(tmp_path, "run-1", redact=broken) as run:
        event = run.event("error", message="sk-secret-value")
    assert "sk-secret-value" not in json.dumps(event)
    assert "sk-secret-value" not in (traces(tmp_path) / "run-1.jsonl").read_text()


def test_persist_false_writes_nothing(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []
    with Trace(tmp_path, "run-1", sink=seen.append, persist=False) as run:
        run.event("run.start")
    assert len(seen) == 1
    assert not (tmp_path / ".zizou").exists()
    assert run.problem is None


def test_a_hostile_run_id_never_reaches_the_file_system(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    seen: list[dict[str, Any]] = []
    run = Trace(root, "../../escape", sink=seen.append)
    run.event("run.start")
    assert run.problem is not None
    assert len(seen) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]
    assert not (root / ".zizou").exists()


def test_prune_keeps_the_newest_and_leaves_links_alone(tmp_path: Path) -> None:
    for index in range(5):
        hello_run(tmp_path, f"2026010{index}-000000-aaaaaa")
    outside = tmp_path / "precious.jsonl"
    outside.write_text("{}\n")
    (traces(tmp_path) / "20250101-000000-aaaaaa.jsonl").symlink_to(outside)
    assert prune_traces(tmp_path, keep=2) == 3
    assert trace_ids(tmp_path) == ["20260103-000000-aaaaaa", "20260104-000000-aaaaaa"]
    assert outside.exists()
    assert prune_traces(tmp_path / "nowhere", keep=0) == 0


# Reading.


@pytest.mark.parametrize("run_id", HOSTILE_IDS)
def test_read_trace_refuses_hostile_ids(tmp_path: Path, run_id: str) -> None:
    with pytest.raises(UsageError, match="not a run id"):
        read_trace(tmp_path, run_id)


def test_read_trace_names_the_listing_for_a_missing_run(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="zizou trace"):
        read_trace(tmp_path, "20260101-000000-abcdef")


def test_read_trace_skips_a_line_cut_short(tmp_path: Path) -> None:
    hello_run(tmp_path, "run-1")
    with (traces(tmp_path) / "run-1.jsonl").open("a") as file:
        file.write('{"type": "tool.ca')
    assert len(read_trace(tmp_path, "run-1")) == 8


# The command.


def test_listing_shows_recent_runs_newest_first(tmp_path: Path) -> None:
    hello_run(tmp_path, "20260101-000000-aaaaaa")
    hello_run(tmp_path, "20260102-000000-bbbbbb", fail=True)
    with Trace(tmp_path, "20260103-000000-cccccc") as run:
        run.event("run.start", deckPath="review")
    result = run_trace(tmp_path)
    assert result.exit_code == 0, result.output
    rows = result.output.splitlines()
    assert [row.split()[0] for row in rows] == [
        "20260103-000000-cccccc",
        "20260102-000000-bbbbbb",
        "20260101-000000-aaaaaa",
    ]
    assert "review" in rows[0]
    assert "unfinished" in rows[0]
    assert "✗ timeout: greet ran past 120s" in rows[1]
    assert "120.5s" in rows[1]
    assert "examples/hello_world/root.deck.md" in rows[2]
    assert "✓" in rows[2]
    assert "1.3s" in rows[2]


def test_listing_with_no_runs_says_how_to_make_one(tmp_path: Path) -> None:
    result = run_trace(tmp_path)
    assert result.exit_code == 0
    assert "zizou run DECK" in result.output


def test_listing_caps_at_twenty(tmp_path: Path) -> None:
    for index in range(25):
        hello_run(tmp_path, f"run-{index:02d}")
    rows = run_trace(tmp_path).output.splitlines()
    assert len(rows) == 20
    assert rows[0].startswith("run-24")


def test_one_run_as_a_tree(tmp_path: Path) -> None:
    hello_run(tmp_path, "run-1", fail=True)
    result = run_trace(tmp_path, "run-1")
    assert result.exit_code == 0, result.output
    rows = [row.split("  ", 1) for row in result.output.splitlines()]
    assert all(offset.startswith("+") and offset.endswith("s") for offset, _ in rows)
    body = [rest for _, rest in rows]
    assert body == [
        "run.start examples/hello_world/root.deck.md",
        "deck.start examples/hello_world/root.deck.md",
        "action.start greet (depth 1)",
        "  deck.start greet.deck.md",
        "  model.request test-model",
        "  model.response test-model 80ms",
        "action.end greet ✗ timeout: greet ran past 120s 120.0s",
        "run.end ✗ timeout: greet ran past 120s 120.5s",
    ]


def test_nested_actions_indent_under_their_parent() -> None:
    from zizou.commands.trace import tree_lines

    events = [
        {"type": "action.start", "actionCallId": "a", "actionName": "outer", "depth": 1},
        {
            "type": "action.start",
            "actionCallId": "b",
            "parentActionCallId": "a",
            "actionName": "in",
        },
        {"type": "tool.call", "actionCallId": "b", "parentActionCallId": "a", "tool": "grep"},
        {"type": "action.end", "actionCallId": "b", "actionName": "in", "ok": True},
        {"type": "action.end", "actionCallId": "a", "actionName": "outer", "ok": True},
    ]
    body = [line.split("  ", 1)[1] for line in tree_lines(events)]
    assert body == [
        "action.start outer (depth 1)",
        "  action.start in",
        "    tool.call grep",
        "  action.end in ✓",
        "action.end outer ✓",
    ]


def test_printed_values_lose_terminal_controls() -> None:
    line = describe({"type": "action.start", "actionName": "gr\x1b[2Jeet\x07\nnow"})
    assert line == "action.start greet now"


def test_json_prints_the_raw_lines(tmp_path: Path) -> None:
    hello_run(tmp_path, "run-1")
    result = run_trace(tmp_path, "run-1", "--json")
    assert result.exit_code == 0
    assert [json.loads(row) for row in result.output.splitlines()] == lines_of(tmp_path, "run-1")


@pytest.mark.parametrize("run_id", ["../../etc/passwd", "A B", "nope-missing"])
def test_the_command_refuses_bad_or_missing_ids_with_exit_2(tmp_path: Path, run_id: str) -> None:
    result = run_trace(tmp_path, run_id)
    assert isinstance(result.exception, UsageError)
    assert result.exception.exit_code == 2
    assert "zizou trace" in str(result.exception)
