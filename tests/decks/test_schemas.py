"""The fast check of a deck's schemas gives jsonschema's own verdict, and refuses what a
repository must not make zizou run (regexes, deep nesting)."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator, SchemaError

from zizou.decks.schemas import MAX_DEPTH, schema_problem

CASES: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
    {"type": ["string", "null"], "description": "x", "default": None},
    {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
    {"anyOf": [{"type": "string"}, {"type": "number", "multipleOf": 0.5}]},
    {"type": "object", "additionalProperties": False, "properties": {"e": {"enum": [1, "a"]}}},
    {"$defs": {"p": {"type": "string"}}, "properties": {"q": {"$ref": "#/$defs/p"}}},
    {"type": "object", "properties": {"f": {"type": "string", "format": "date"}}},
    {"prefixItems": [{"type": "string"}, True], "items": False},
    {"type": "strin"},
    {"type": []},
    {"type": ["string", "string"]},
    {"required": ["a", "a"]},
    {"required": "a"},
    {"properties": {"a": 3}},
    {"properties": []},
    {"anyOf": []},
    {"minLength": -1},
    {"minLength": 1.5},
    {"multipleOf": 0},
    {"uniqueItems": "yes"},
    {"description": 4},
    {"enum": "a"},
    {"items": [{"type": "string"}]},
    {"not": "x"},
    {"minContains": True},
    {"examples": {}},
    {"x-vendor": {"anything": 1}, "type": "object"},
    {"contentMediaType": "text/plain"},
    {"contentMediaType": 3},
    {"dependentRequired": {"a": ["b"]}},
    {"dependentRequired": {"a": "b"}},
]


def jsonschema_says_ok(schema: dict[str, Any]) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize("schema", CASES, ids=lambda s: str(s)[:40])
def test_the_fast_check_agrees_with_jsonschema(schema: dict[str, Any]) -> None:
    assert (schema_problem(schema) is None) == jsonschema_says_ok(schema)


def test_a_problem_names_where_it_is() -> None:
    problem = schema_problem({"properties": {"name": {"type": "strin"}}})
    assert problem is not None and "at properties/name/type" in problem and "'strin'" in problem


@pytest.mark.parametrize("key", ["pattern", "patternProperties"])
def test_regex_keywords_are_refused_wherever_they_are(key: str) -> None:
    value: Any = "(a+)+$" if key == "pattern" else {"(a+)+$": {}}
    deep = {"x-note": "unknown keyword first", "properties": {"a": {"items": {key: value}}}}
    problem = schema_problem(deep)
    assert problem is not None and f"remove `{key}`" in problem


def test_nesting_is_bounded() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH + 2):
        schema = {"type": "array", "items": schema}
    problem = schema_problem(schema)
    assert problem is not None and "levels deep" in problem
