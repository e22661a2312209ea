"""A project's state schema comes with the repository: whatever it holds, zizou starts, and a
schema that cannot be used is an error naming the file and the place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zizou.contracts.conversation import windowed
from zizou.contracts.task_state import SchemaError, load_schema


def write(root: Path, text: str) -> None:
    (root / ".zizou").mkdir(exist_ok=True)
    (root / ".zizou" / "state.schema.json").write_text(text)


def test_a_regex_in_a_schema_is_refused_naming_where(tmp_path: Path) -> None:
    a = {"type": "string", "pattern": "^(a+)+$", "default": "a" * 40 + "!"}
    write(tmp_path, json.dumps({"type": "object", "properties": {"a": a}}))
    with pytest.raises(SchemaError, match=r"/properties/a/pattern: zizou does not run regexes"):
        load_schema(tmp_path)


def test_a_property_named_pattern_is_still_a_property(tmp_path: Path) -> None:
    props = {"pattern": {"type": "string"}}
    write(tmp_path, json.dumps({"type": "object", "properties": props}))
    assert load_schema(tmp_path).zero() == {"pattern": ""}


def test_a_schema_nested_too_deep_is_refused(tmp_path: Path) -> None:
    node: dict[str, object] = {"type": "string"}
    for _ in range(40):
        node = {"type": "array", "items": node}
    write(tmp_path, json.dumps({"type": "object", "properties": {"a": node}}))
    with pytest.raises(SchemaError, match="nested more than"):
        load_schema(tmp_path)


def test_json_nested_past_the_parsers_limit_is_a_schema_error(tmp_path: Path) -> None:
    write(tmp_path, '{"type": "object", "x": ' + "[" * 20_000 + "]" * 20_000 + "}")
    with pytest.raises(SchemaError):
        load_schema(tmp_path)


def test_a_self_reference_does_not_stop_zizou(tmp_path: Path) -> None:
    a = {"$ref": "#/properties/a", "default": 1}
    write(tmp_path, json.dumps({"type": "object", "properties": {"a": a}}))
    with pytest.raises(SchemaError):
        load_schema(tmp_path)


def test_a_shared_command_goes_with_the_turn_it_came_before() -> None:
    history = [
        {"role": "user", "content": "t1"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "!ls output"},
        {"role": "user", "content": "t2"},
    ]
    assert windowed(history, 0) == (history[2:], 1)
    assert windowed(history, 1) == (history, 0)
