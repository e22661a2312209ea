"""The task state: schemas (loading, zero values, TypeScript), patches applied all or nothing
with messages the model can act on, merge patches, the plan line, and the user's edits."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from zizou.contracts.task_state import (
    BUILTIN_SCHEMA,
    MAX_OPS,
    SCHEMA_FILE,
    SNAPSHOT_EVERY,
    SchemaError,
    TaskSchema,
    TaskState,
    builtin_schema,
    load_schema,
    merge_patch,
    plan_line,
)

COUNT_SCHEMA = {"type": "object", "properties": {"count": {"type": "integer", "default": 0}}}


def item(ident: str, title: str, status: str = "pending") -> dict[str, str]:
    return {"id": ident, "title": title, "status": status}


def with_plan(*items: dict[str, str]) -> TaskState:
    state = TaskState()
    assert state.apply_merge({"plan": list(items)}).ok
    return state


def write_schema(root: Path, text: str) -> None:
    (root / ".zizou").mkdir(exist_ok=True)
    (root / SCHEMA_FILE).write_text(text)


# --- zero values ---------------------------------------------------------------------------


def test_a_project_schema_starts_from_its_defaults(tmp_path: Path) -> None:
    write_schema(tmp_path, json.dumps(COUNT_SCHEMA))
    schema = load_schema(tmp_path)
    assert schema.source == SCHEMA_FILE
    assert schema.zero() == {"count": 0}
    assert TaskState(schema).compact_json() == '{"count":0}'


def test_the_builtin_state_starts_empty(tmp_path: Path) -> None:
    schema = load_schema(tmp_path)  # no schema file
    assert schema is builtin_schema()
    assert schema.source == "built-in"
    assert schema.zero() == {"goal": "", "plan": [], "notes": [], "questions": [], "files": []}


def test_zero_values_fill_every_property() -> None:
    schema = TaskSchema(
        {
            "type": "object",
            "$defs": {"Pos": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "properties": {
                "name": {"type": "string"},
                "ready": {"type": "boolean"},
                "mode": {"enum": ["fast", "slow"]},
                "picked": {"enum": ["a", "b"], "default": "b"},
                "label": {"type": ["null", "string"]},
                "nothing": {"type": "null"},
                "kind": {"const": "v1"},
                "pos": {"$ref": "#/$defs/Pos"},
                "inner": {"type": "object", "properties": {"n": {"type": "integer"}}},
                "tags": {"type": "array", "items": {"type": "string"}},
            },
            "required": ["name"],
        },
        "test",
    )
    assert schema.zero() == {
        "name": "",
        "ready": False,
        "mode": "fast",
        "picked": "b",
        "label": "",
        "nothing": None,
        "kind": "v1",
        "pos": {"x": 0},
        "inner": {"n": 0},
        "tags": [],
    }


def test_a_recursive_schema_leaves_optional_recursion_out() -> None:
    node = {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}
    schema = {"type": "object", "$defs": {"node": node}, "properties": {"head": node}}
    assert TaskSchema(schema, "test").zero() == {"head": {"next": {}}}


def test_zero_copies_are_independent() -> None:
    schema = builtin_schema()
    schema.zero()["plan"].append("x")
    assert schema.zero()["plan"] == []


# --- patches ---------------------------------------------------------------------------------


def test_a_wrong_type_is_refused_naming_the_pointer_and_the_value_is_kept() -> None:
    state = TaskState(TaskSchema(COUNT_SCHEMA, "test"))
    ok = state.apply_patch([{"op": "replace", "path": "/count", "value": 7}])
    assert ok.ok and ok.changed_paths == ("/count",)
    assert ok.message == "Applied 1 operation: replace /count."
    bad = state.apply_patch([{"op": "replace", "path": "/count", "value": "seven"}])
    assert not bad.ok
    assert bad.message == "Not applied: /count: 'seven' is not of type 'integer'. State unchanged."
    assert bad.changed_paths == ()
    assert state.value == {"count": 7} == bad.value


def test_a_missing_index_names_the_operation_and_the_item_count() -> None:
    state = with_plan(item("p1", "a"), item("p2", "b"), item("p3", "c"))
    result = state.apply_patch(
        [
            {"op": "replace", "path": "/goal", "value": "ship it"},
            {"op": "replace", "path": "/plan/5/status", "value": "done"},
        ]
    )
    assert result.message == (
        "Not applied: operation 2 (replace /plan/5/status): the path does not exist "
        "(plan has 3 items). State unchanged."
    )
    assert state.value["goal"] == ""  # operation 1 is not kept either


@pytest.mark.parametrize(
    ("op", "why"),
    [
        (
            {"op": "remove", "path": "/plans/0"},
            "operation 1 (remove /plans/0): the path does not exist (the state has no key "
            "'plans'; keys: goal, plan, notes, questions, files)",
        ),
        (
            {"op": "add", "path": "/plan/4", "value": item("p9", "z")},
            "operation 1 (add /plan/4): the path does not exist (plan has 1 item; use /plan/- "
            "to append)",
        ),
        (
            {"op": "replace", "path": "/goal/text", "value": "x"},
            'operation 1 (replace /goal/text): the path does not exist (goal is "", not an '
            "object or array)",
        ),
        (
            {"op": "replace", "path": "goal", "value": "x"},
            'operation 1 (replace goal): the path must be a JSON pointer starting with "/", '
            'such as "/goal"',
        ),
        (
            {"op": "move", "from": "/plan/3", "path": "/plan/0"},
            "operation 1 (move /plan/3 to /plan/0): the from path does not exist (plan has 1 item)",
        ),
        (
            {"op": "test", "path": "/plan/0/status", "value": "done"},
            'operation 1 (test /plan/0/status): the test failed: /plan/0/status is "pending", '
            'not "done"',
        ),
        (
            {"op": "rename", "path": "/goal"},
            "operation 1 (rename /goal): not a valid operation (Unknown operation 'rename'); "
            "use add, remove, replace, move, copy or test",
        ),
        ({"op": "add", "path": "/notes/-", "value": float("nan")}, "nan is not a JSON value"),
    ],
)
def test_refusals_say_what_to_fix(op: dict[str, Any], why: str) -> None:
    state = with_plan(item("p1", "a"))
    before = state.compact_json()
    result = state.apply_patch([op])
    assert result.message == f"Not applied: {why}. State unchanged."
    assert state.compact_json() == before


def test_a_value_nested_too_deeply_is_refused() -> None:
    deep: list[Any] = []
    inner = deep
    for _ in range(5_000):
        inner.append([])
        inner = inner[0]
    result = TaskState().apply_patch([{"op": "add", "path": "/notes/-", "value": deep}])
    assert result.message == "Not applied: the value is nested too deeply. State unchanged."


def test_a_patch_is_all_or_nothing_and_never_changes_a_committed_value() -> None:
    state = with_plan(item("p1", "a"), item("p2", "b"))
    committed = state.value
    frozen = json.dumps(committed)
    ops = [
        {"op": "replace", "path": "/plan/0/status", "value": "done"},
        {"op": "add", "path": "/notes/-", "value": "found it"},
        {"op": "replace", "path": "/plan/1/status", "value": "doing"},
    ]
    result = state.apply_patch(ops)
    assert not result.ok
    assert result.message.startswith("Not applied: /plan/1/status: 'doing' is not one of [")
    assert state.value is committed and json.dumps(committed) == frozen
    assert state.apply_patch(ops[:2]).ok
    assert json.dumps(committed) == frozen  # the old value is untouched: copy-on-write
    assert state.value["plan"][0]["status"] == "done" and state.value["notes"] == ["found it"]


def test_move_copy_and_remove() -> None:
    state = with_plan(item("p1", "a"), item("p2", "b"), item("p3", "c"))
    result = state.apply_patch(
        [
            {"op": "move", "from": "/plan/2", "path": "/plan/0"},
            {"op": "copy", "from": "/plan/0/title", "path": "/goal"},
            {"op": "remove", "path": "/plan/1"},
            {"op": "test", "path": "/goal", "value": "c"},
        ]
    )
    assert result.ok, result.message
    assert result.message == (
        "Applied 4 operations: move /plan/2 to /plan/0, copy /plan/0/title to /goal, "
        "remove /plan/1, test /goal."
    )
    assert [p["id"] for p in state.value["plan"]] == ["p3", "p2"]
    assert state.value["goal"] == "c"
    assert result.changed_paths == ("/plan/2", "/plan/0", "/goal", "/plan/1")


def test_at_most_100_operations() -> None:
    state = TaskState()
    ops = [{"op": "add", "path": "/notes/-", "value": f"n{i}"} for i in range(MAX_OPS + 1)]
    result = state.apply_patch(ops)
    assert result.message == (
        "Not applied: the patch has 101 operations, over the 100 allowed: split it. "
        "State unchanged."
    )
    assert state.apply_patch(ops[:MAX_OPS]).ok
    assert len(state.value["notes"]) == MAX_OPS


def test_two_items_in_progress_are_refused_naming_both() -> None:
    state = with_plan(item("p1", "a", "in_progress"), item("p2", "b"))
    result = state.apply_patch(
        [{"op": "replace", "path": "/plan/1/status", "value": "in_progress"}]
    )
    assert result.message == (
        'Not applied: /plan: at most one item may be in_progress, but "p1" and "p2" both are: '
        "set one of them to pending or done. State unchanged."
    )


def test_plan_ids_are_unique_and_the_plan_holds_at_most_50() -> None:
    state = with_plan(item("p1", "a"))
    dup = state.apply_patch([{"op": "add", "path": "/plan/-", "value": item("p1", "b")}])
    assert '/plan/1/id: "p1" is already the id of /plan/0' in dup.message
    many = state.apply_merge({"plan": [item(f"p{i}", "x") for i in range(51)]})
    assert many.message == "Not applied: /plan: has 51 items; at most 50 allowed. State unchanged."


def test_at_most_five_problems_are_listed() -> None:
    state = TaskState()
    result = state.apply_merge({"plan": [{"id": i} for i in range(4)]})
    assert result.message.count(";") == 5
    assert result.message.endswith("; and 7 more problems. State unchanged.")


def test_the_size_limit_names_the_size() -> None:
    state = TaskState()
    result = state.apply_merge({"notes": ["x" * 8_000]})
    assert result.message == (
        "Not applied: the state would be 8,060 characters as compact JSON, over the 8,000 "
        "allowed: shorten or remove something. State unchanged."
    )
    assert state.apply_merge({"notes": ["x" * 7_900]}).ok


def test_a_patch_that_changes_nothing_is_not_counted() -> None:
    state = TaskState()
    result = state.apply_patch([{"op": "replace", "path": "/goal", "value": ""}])
    assert result.ok and result.changed_paths == ()
    assert result.message == "Applied 1 operation: replace /goal. Nothing changed."
    assert state.patches_applied == 0


def test_patches_count_towards_a_snapshot() -> None:
    state = TaskState()
    for n in range(SNAPSHOT_EVERY):
        assert not state.snapshot_due
        state.apply_patch([{"op": "add", "path": "/notes/-", "value": str(n)}])
    assert state.snapshot_due and state.patches_applied == SNAPSHOT_EVERY
    state.mark_snapshot()
    assert state.patches_since_snapshot == 0 and not state.snapshot_due


# --- merge patches -----------------------------------------------------------------------------


def test_merge_patches_merge_objects_replace_the_rest_and_delete_with_null() -> None:
    target = {"a": {"b": 1, "c": 2}, "d": [1, 2], "e": "x"}
    patch = {"a": {"b": None, "z": {"q": None, "r": 1}}, "d": [3], "e": None, "f": 0}
    assert merge_patch(target, patch) == {"a": {"c": 2, "z": {"r": 1}}, "d": [3], "f": 0}
    assert target == {"a": {"b": 1, "c": 2}, "d": [1, 2], "e": "x"}
    assert merge_patch({"a": 1}, ["list"]) == ["list"]


def test_apply_merge_validates_and_reports_what_changed() -> None:
    state = TaskState()
    result = state.apply_merge({"goal": "fix the parser", "notes": ["uses pyparsing"]})
    assert result.ok and result.message == "Merged: /goal, /notes."
    assert result.changed_paths == ("/goal", "/notes")
    removed = state.apply_merge({"notes": None})
    assert (
        removed.message == "Not applied: (root): 'notes' is a required property. State unchanged."
    )
    assert not state.apply_merge(["goal"]).ok  # type: ignore[arg-type]


def test_keys_stay_in_the_schema_order() -> None:
    schema = TaskSchema(
        {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}},
        "test",
    )
    state = TaskState(schema)
    state.apply_merge({"a": None})
    state.apply_merge({"extra": 1, "a": "back"})
    assert state.compact_json() == '{"a":"back","b":"","extra":1}'


# --- restore, reset, user edits --------------------------------------------------------------


def test_restore_takes_a_valid_value_and_refuses_an_invalid_one() -> None:
    state = TaskState()
    value = {"goal": "g", "plan": [item("p1", "a")], "notes": [], "questions": [], "files": []}
    assert state.restore(value) == []
    value["goal"] = "changed outside"
    assert state.value["goal"] == "g"  # restore copied it
    assert state.restore({"goal": 1}) != []
    assert state.value["goal"] == "g"
    snapshot = state.snapshot()
    snapshot["plan"].clear()
    assert len(state.value["plan"]) == 1


def test_the_users_edits_are_kept_for_the_model() -> None:
    state = TaskState()
    state.apply_patch([{"op": "replace", "path": "/goal", "value": "a"}])  # the model's own
    state.apply_merge({"plan": [item("p1", "Write the test")]}, source="user")
    state.apply_patch([{"op": "replace", "path": "/plan/0/status", "value": "done"}], "user")
    state.apply_patch([{"op": "replace", "path": "/plan/9/status", "value": "done"}], "user")
    state.reset()
    edits = state.take_user_edits()
    assert [edit.text() for edit in edits] == [
        'merge {"plan":[{"id":"p1","title":"Write the test","status":"pending"}]}',
        'patch [{"op":"replace","path":"/plan/0/status","value":"done"}]',
        "reset the state to its zero value",
    ]
    assert edits[1].changed_paths == ("/plan/0/status",)
    assert state.take_user_edits() == []
    assert state.value == builtin_schema().zero()


# --- loading schemas -------------------------------------------------------------------------


def test_a_schema_file_that_is_not_json_names_line_and_column(tmp_path: Path) -> None:
    write_schema(tmp_path, '{\n  "type": "object",\n  "properties": {,}\n}\n')
    with pytest.raises(SchemaError) as caught:
        load_schema(tmp_path)
    assert str(caught.value) == (
        ".zizou/state.schema.json: not valid JSON: Expecting property name enclosed in double "
        "quotes at line 3, column 18"
    )
    assert (caught.value.line, caught.value.column) == (3, 18)


@pytest.mark.parametrize(
    ("schema", "message", "pointer"),
    [
        (
            {"type": 5},
            "invalid JSON Schema at /type: 5 is not valid under any of the given schemas",
            "/type",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "strin"}}},
            "invalid JSON Schema at /properties/a/type: 'strin' is not valid under any of the "
            "given schemas",
            "/properties/a/type",
        ),
        ({"type": "array"}, 'the root must have "type": "object"', "/type"),
        (
            {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}},
            "$ref '#/$defs/missing' at /properties/a names nothing in this file",
            "/properties/a/$ref",
        ),
        (
            {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}},
            "$ref 'https://example.com/a.json' at /properties/a is not in this file (zizou "
            "follows only references such as #/$defs/Item)",
            "/properties/a/$ref",
        ),
        (
            {"type": "object", "properties": {"a": {"type": "string", "minLength": 1}}},
            "its zero value is not valid (/a: has 0 characters; at least 1 needed): give /a a "
            '"default"',
            "/a",
        ),
        (
            {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"},
            "$schema is 'http://json-schema.org/draft-07/schema#'; zizou reads JSON Schema "
            '2020-12: set "$schema" to "https://json-schema.org/draft/2020-12/schema" or remove it',
            "/$schema",
        ),
        (
            {"type": "object", "properties": {"a": {"$id": "other.json", "type": "string"}}},
            "$id at /properties/a: keep the schema one document",
            "/properties/a",
        ),
    ],
)
def test_an_unusable_schema_names_the_problem_and_where(
    tmp_path: Path, schema: dict[str, Any], message: str, pointer: str
) -> None:
    write_schema(tmp_path, json.dumps(schema))
    with pytest.raises(SchemaError) as caught:
        load_schema(tmp_path)
    assert str(caught.value) == f"{SCHEMA_FILE}: {message}"
    assert caught.value.pointer == pointer


def test_a_schema_symlinked_out_of_the_project_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / ".zizou").mkdir(parents=True)
    outside = tmp_path / "outside.json"
    outside.write_text(json.dumps(COUNT_SCHEMA))
    os.symlink(outside, root / SCHEMA_FILE)
    with pytest.raises(SchemaError) as caught:
        load_schema(root)
    assert str(caught.value).startswith(f"{SCHEMA_FILE}: not read: ")
    assert "outside the project" in str(caught.value)


def test_a_schema_symlinked_inside_the_project_is_read(tmp_path: Path) -> None:
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "state.json").write_text(json.dumps(COUNT_SCHEMA))
    (tmp_path / ".zizou").mkdir()
    os.symlink("../schemas/state.json", tmp_path / SCHEMA_FILE)
    assert load_schema(tmp_path).zero() == {"count": 0}


def test_a_schema_over_64_kb_is_refused(tmp_path: Path) -> None:
    big = {"type": "object", "description": "x" * 70_000}
    write_schema(tmp_path, json.dumps(big))
    with pytest.raises(SchemaError, match="larger than 65,536 bytes"):
        load_schema(tmp_path)


# --- validation matches jsonschema ------------------------------------------------------------

TRICKY = {
    "type": "object",
    "$defs": {"n": {"type": "object", "properties": {"v": {"type": "integer"}}}},
    "properties": {
        "i": {"type": "integer", "minimum": 0, "exclusiveMaximum": 5},
        "e": {"enum": [1, True, "x", None]},
        "s": {"type": ["string", "null"], "maxLength": 2, "pattern": "^a", "default": None},
        "n": {"$ref": "#/$defs/n"},
        "any": {"anyOf": [{"type": "string"}, {"minimum": 3}]},
        "one": {"oneOf": [{"type": "integer"}, {"minimum": 2}]},
        "l": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
    },
    "additionalProperties": {"type": "boolean"},
}


@pytest.mark.parametrize(
    "value",
    [
        {"i": 3.0},
        {"i": True},
        {"i": 5},
        {"e": 1},
        {"e": 1.0},
        {"e": False},
        {"s": "ab"},
        {"s": "ba"},
        {"s": None},
        {"n": {"v": 1.5}},
        {"any": 2},
        {"any": 4},
        {"one": 3},
        {"one": 1},
        {"l": ["a", "b", "c"]},
        {"l": ["a", 1]},
        {"extra": True},
        {"extra": 1},
    ],
)
def test_validation_agrees_with_jsonschema(value: dict[str, Any]) -> None:
    schema = TaskSchema(TRICKY, "test")
    assert (schema.validate(value) == []) == Draft202012Validator(TRICKY).is_valid(value)


# --- TypeScript --------------------------------------------------------------------------------


def test_the_builtin_schema_as_typescript() -> None:
    assert builtin_schema().typescript() == (
        "/** Your working state for this task, shown to you at every step. Keep it current "
        "with update_state; the user sees the plan and may edit it */\n"
        "interface TaskState {\n"
        "  /** What the user wants, in a sentence or two and in their terms; update it when "
        "they change their mind */\n"
        "  goal: string;\n"
        "  /** The steps to the goal, in order. Mark a step in_progress when you start it (one "
        "at a time) and done once it is finished and checked; a blocked step says why in its "
        "note; at most 50 items */\n"
        "  plan: Array<{\n"
        '    /** Short and unique, kept when the title changes: "p1" */\n'
        "    id: string;\n"
        "    /** The step in a few words */\n"
        "    title: string;\n"
        '    status: "pending" | "in_progress" | "done" | "blocked";\n'
        "    /** Why blocked, or what you found */\n"
        "    note?: string;\n"
        "  }>;\n"
        "  /** Facts worth keeping for later steps, one short line each: decisions, findings, "
        "commands that work */\n"
        "  notes: string[];\n"
        "  /** Open questions for the user; ask them in your reply too, and remove each once it "
        "is answered */\n"
        "  questions: string[];\n"
        "  /** Paths of the files that matter here, relative to the project root */\n"
        "  files: string[];\n"
        "}"
    )


def test_constructs_as_typescript() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Item": {
                "description": "One thing.",
                "type": "object",
                "properties": {"name": {"type": "string"}, "child": {"$ref": "#/$defs/Item"}},
                "required": ["name"],
            }
        },
        "properties": {
            "count": {"type": "integer", "default": 0},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
            "flag": {"type": "boolean"},
            "mode": {"enum": ["fast", "slow"], "description": "How to run."},
            "kind": {"const": "v1"},
            "maybe": {"type": ["string", "null"]},
            "old": {"type": "string", "nullable": True},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "one": {"oneOf": [{"$ref": "#/$defs/Item"}, {"type": "null"}]},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "tags": {"type": "object", "additionalProperties": {"type": "string"}},
            "both": {
                "allOf": [
                    {"$ref": "#/$defs/Item"},
                    {"type": "object", "properties": {"extra": {"type": "number"}}},
                ]
            },
            "blob": {},
            "weird": {"not": {"type": "string"}},
            "when": {"type": "string", "format": "date-time"},
            "with-dash": {"type": "string", "maxLength": 10},
        },
        "required": ["count", "items"],
    }
    assert TaskSchema(schema, "test").typescript("State") == "\n".join(
        [
            "interface State {",
            "  /** integer; default: 0 */",
            "  count: number;",
            "  /** >= 0; <= 1 */",
            "  ratio?: number;",
            "  flag?: boolean;",
            "  /** How to run */",
            '  mode?: "fast" | "slow";',
            '  kind?: "v1";',
            "  maybe?: string | null;",
            "  old?: string | null;",
            "  either?: string | number;",
            "  one?: Item | null;",
            "  items: Item[];",
            "  tags?: Record<string, string>;",
            "  both?: Item & {",
            "    extra?: number;",
            "  };",
            "  blob?: unknown;",
            "  weird?: unknown;",
            "  /** format: date-time */",
            "  when?: string;",
            "  /** at most 10 chars */",
            '  "with-dash"?: string;',
            "}",
            "/** One thing */",
            "type Item = {",
            "  name: string;",
            "  child?: Item;",
            "};",
        ]
    )


def test_a_root_without_properties_is_a_type_alias() -> None:
    schema = {"type": "object", "additionalProperties": {"type": "integer"}}
    assert TaskSchema(schema, "test").typescript() == "type TaskState = Record<string, number>;"


def test_nested_objects_indent() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {
                "type": "object",
                "properties": {"b": {"type": "object", "properties": {"c": {"type": "string"}}}},
            }
        },
    }
    assert TaskSchema(schema, "test").typescript() == (
        "interface TaskState {\n  a?: {\n    b?: {\n      c?: string;\n    };\n  };\n}"
    )


# --- the plan line -------------------------------------------------------------------------------


def test_no_plan_no_line() -> None:
    assert plan_line(TaskState().value) is None
    assert plan_line({"count": 1}) is None


def test_the_plan_line_shows_the_last_done_the_current_and_the_next() -> None:
    state = with_plan(
        item("p1", "Read the parser", "done"),
        item("p2", "Write a failing test", "done"),
        item("p3", "Fix the off-by-one", "in_progress"),
        item("p4", "Run the suite"),
        item("p5", "Update the changelog"),
        item("p6", "Ask about release"),
    )
    assert plan_line(state.value) == (
        "▸ plan: ☑ Write a failing test · ◐ Fix the off-by-one · ☐ Run the suite (+3 more)"
    )


def test_the_plan_line_without_an_item_in_progress() -> None:
    value = {"plan": [item("p1", "a", "done"), item("p2", "b", "blocked"), item("p3", "c")]}
    assert plan_line(value) == "▸ plan: ☑ a · ⊘ b · ☐ c"
    assert plan_line({"plan": [item("p1", "only", "done")]}) == "▸ plan: ☑ only"
    done = {"plan": [item(f"p{i}", f"t{i}", "done") for i in range(5)]}
    assert plan_line(done) == "▸ plan: ☑ t2 · ☑ t3 · ☑ t4 (+2 more)"


def test_the_plan_line_fits_120_characters() -> None:
    long = "a very long title that goes on and on about what the step should do " * 3
    value = {
        "plan": [item("p1", long, "done"), item("p2", "short", "in_progress"), item("p3", long)]
    }
    line = plan_line(value)
    assert line is not None and len(line) == 120
    assert "◐ short ·" in line and line.count("…") == 2


def test_builtin_schema_is_the_documented_one() -> None:
    plan = BUILTIN_SCHEMA["properties"]["plan"]
    assert plan["maxItems"] == 50
    assert plan["items"]["required"] == ["id", "title", "status"]
    assert plan["items"]["properties"]["status"]["enum"] == [
        "pending",
        "in_progress",
        "done",
        "blocked",
    ]
    assert all("description" in p for p in BUILTIN_SCHEMA["properties"].values())
