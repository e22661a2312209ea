"""What one task-state update costs on a large state.

A 50-operation JSON Patch (replacing statuses, editing titles, appending, removing and moving
items) on a state whose list holds 1,000 items, under a project-style schema like the built-in
one without its 50-item cap: applied to a copy, validated and committed, as `update_state`
does. Each run starts from the same committed state. Also the same patch's parts on their own
(validation, the compact JSON), a refused patch (jsonschema runs to name the problem), and for
comparison jsonschema's own validation and jsonpatch on a deep copy. Target: <= 5 ms per update.

    .venv/bin/python bench/task_state.py [--runs 200] [--items 1000]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import time
from collections.abc import Callable
from typing import Any

import jsonpatch
from jsonschema import Draft202012Validator

from zizou.contracts.task_state import TaskSchema, TaskState, compact

ITEM = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "A stable id."},
        "title": {"type": "string", "description": "What the task does."},
        "status": {"type": "string", "enum": ["pending", "in_progress", "done", "blocked"]},
        "note": {"type": "string"},
    },
    "required": ["id", "title", "status"],
    "additionalProperties": False,
}
SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "goal": {"type": "string"},
        "tasks": {"type": "array", "items": ITEM},
        "notes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["goal", "tasks", "notes"],
    "additionalProperties": False,
}


def make_state(items: int) -> TaskState:
    state = TaskState(TaskSchema(SCHEMA, "bench"), max_chars=10_000_000)
    tasks = [
        {"id": f"t{i}", "title": f"task number {i} does a thing", "status": "pending", "note": ""}
        for i in range(items)
    ]
    problems = state.restore({"goal": "bench", "tasks": tasks, "notes": []})
    assert not problems, problems
    return state


def fifty_ops(items: int) -> list[dict[str, Any]]:
    step = items // 20
    ops: list[dict[str, Any]] = []
    for i in range(20):
        ops.append({"op": "replace", "path": f"/tasks/{i * step}/status", "value": "done"})
    for i in range(10):
        ops.append({"op": "replace", "path": f"/tasks/{i * step + 1}/title", "value": f"new {i}"})
    for i in range(10):
        item = {"id": f"n{i}", "title": f"added {i}", "status": "pending"}
        ops.append({"op": "add", "path": "/tasks/-", "value": item})
    for i in range(5):
        ops.append({"op": "remove", "path": f"/tasks/{i * step + 2}"})
    for i in range(4):
        ops.append({"op": "move", "from": f"/tasks/{i * step + 3}", "path": "/tasks/0"})
    ops.append({"op": "add", "path": "/notes/-", "value": "50 operations applied"})
    assert len(ops) == 50
    return ops


def timed(fn: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def timed_updates(items: int, ops: list[dict[str, Any]], runs: int) -> float:
    """apply_patch on a fresh state each run (made outside the timing)."""
    samples = []
    for _ in range(runs):
        state = make_state(items)
        started = time.perf_counter()
        result = state.apply_patch(ops)
        samples.append(time.perf_counter() - started)
        assert result.ok, result.message
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--items", type=int, default=1000)
    args = parser.parse_args()
    few = max(5, args.runs // 10)
    ops = fifty_ops(args.items)
    state = make_state(args.items)
    start = state.snapshot()
    patched = jsonpatch.apply_patch(start, ops)
    bad = [*ops[:49], {"op": "replace", "path": "/tasks/5/status", "value": "doing"}]
    jsonschema_alone = Draft202012Validator(SCHEMA)
    rows = [
        ("update: apply + validate + commit", timed_updates(args.items, ops, args.runs)),
        ("  validate, compiled checker", timed(lambda: state.schema.validate(patched), args.runs)),
        ("  compact JSON", timed(lambda: compact(patched), args.runs)),
        ("refused update (jsonschema names it)", timed(lambda: state.apply_patch(bad), few)),
        (
            "for comparison: jsonschema alone",
            timed(lambda: jsonschema_alone.is_valid(patched), few),
        ),
        ("for comparison: jsonpatch on a deepcopy", timed(lambda: naive(start, ops), few)),
    ]
    print(
        f"{args.items:,} items, {len(ops)} operations, {len(state.compact_json()):,} chars; "
        f"median ms (target: update <= 5 ms)"
    )
    for name, ms in rows:
        print(f"  {name:<42} {ms:8.3f}")
    assert state.snapshot() == start, "a refused patch changed the state"


def naive(value: dict[str, Any], ops: list[dict[str, Any]]) -> object:
    return jsonpatch.apply_patch(copy.deepcopy(value), ops, in_place=True)


if __name__ == "__main__":
    main()
