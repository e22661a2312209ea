"""Checking a deck's JSON Schemas fast enough to load a hundred decks at every start.

jsonschema's own check (the 2020-12 meta-schema) costs a millisecond or two per schema; a
session loads every deck, so the keywords decks use are checked here by shape instead, in
microseconds, exactly as strictly as the meta-schema checks them. A schema that uses any other
keyword gets the full check. A schema comes with the repository: regex keywords are refused
(a pattern with nested repeats would hang the check of a value the model writes), and nesting
is bounded.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 32
TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
SCHEMA_MAPS = frozenset({"properties", "$defs", "dependentSchemas"})
SCHEMAS = frozenset(
    {
        "items",
        "additionalProperties",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
    }
)
SCHEMA_LISTS = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
STRINGS = frozenset({"description", "title", "$comment", "$ref", "$id", "$schema", "$anchor"})
COUNTS = frozenset(
    {
        "minLength",
        "maxLength",
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "minContains",
        "maxContains",
    }
)
NUMBERS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
FLAGS = frozenset({"uniqueItems", "deprecated", "readOnly", "writeOnly"})
ANYTHING = frozenset({"default", "const", "format"})  # format: annotation only, never asserted
REGEX_KEYWORDS = frozenset({"pattern", "patternProperties"})


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a usable JSON Schema (2020-12), or None."""
    unknown: list[str] = []
    try:
        problem = _regex_anywhere(schema) or _problem(schema, "", 0, unknown)
        problem = problem or _refs_problem(schema)
    except RecursionError:
        return "not a valid JSON Schema: it is nested too deeply"
    if problem is not None:
        return f"not a valid JSON Schema{problem}"
    return _full_check(schema) if unknown else None


def _regex_anywhere(schema: Any) -> str | None:
    """A regex keyword anywhere in the document (under `default`, an unknown keyword or a
    `$defs` entry too: a `$ref` can point anywhere), except as a property's name."""
    todo: list[tuple[Any, str, bool, int]] = [(schema, "", False, 0)]
    while todo:
        node, where, names, depth = todo.pop()
        if depth > MAX_DEPTH * 2:
            return f"{_at(where)}: nested more than {MAX_DEPTH} levels deep"
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{where}/{key}"
                if key in REGEX_KEYWORDS and not names:
                    return f"{_at(here)}: zizou does not run regexes from a deck's schema; " + (
                        f"remove `{key}`"
                    )
                todo.append((value, here, key in SCHEMA_MAPS, depth + 1))
        elif isinstance(node, list):
            todo += [(item, f"{where}/{n}", False, depth + 1) for n, item in enumerate(node)]
    return None


def _refs_problem(schema: Any) -> str | None:
    """A `$ref` that is not a local `#/$defs/NAME` (or `#`) that exists: nothing is fetched, and
    a reference that cannot be followed would fail only when a value is checked."""
    todo: list[tuple[Any, str]] = [(schema, "")]
    while todo:
        node, where = todo.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if ref is not None and not _resolves(schema, ref):
                return f"{_at(where + '/$ref')}: {_json(ref)} is not a `#/$defs/NAME` it defines"
            todo += [(value, f"{where}/{key}") for key, value in node.items()]
        elif isinstance(node, list):
            todo += [(item, f"{where}/{n}") for n, item in enumerate(node)]
    return None


def _resolves(schema: Any, ref: Any) -> bool:
    if ref == "#":
        return True
    if not isinstance(ref, str) or not ref.startswith("#/$defs/"):
        return False
    defs = schema.get("$defs") if isinstance(schema, dict) else None
    name = ref.removeprefix("#/$defs/")
    return isinstance(defs, dict) and "/" not in name and "~" not in name and name in defs


def _problem(node: Any, where: str, depth: int, unknown: list[str]) -> str | None:
    if isinstance(node, bool):
        return None
    if not isinstance(node, dict):
        return f"{_at(where)}: {_json(node)} is not of type 'object', 'boolean'"
    if depth > MAX_DEPTH:
        return f"{_at(where)}: nested more than {MAX_DEPTH} levels deep"
    for key, value in node.items():
        here = f"{where}/{key}"
        problem = _keyword(key, value, here, depth, unknown)
        if problem is not None:
            return problem
    return None


def _keyword(key: str, value: Any, here: str, depth: int, unknown: list[str]) -> str | None:
    if key in REGEX_KEYWORDS:
        return f"{_at(here)}: zizou does not run regexes from a deck's schema; remove `{key}`"
    if key in SCHEMAS:
        return _problem(value, here, depth + 1, unknown)
    if key in SCHEMA_MAPS:
        if not isinstance(value, dict):
            return f"{_at(here)}: {_json(value)} is not of type 'object'"
        for name, sub in value.items():
            if (problem := _problem(sub, f"{here}/{name}", depth + 1, unknown)) is not None:
                return problem
        return None
    if key in SCHEMA_LISTS:
        if not isinstance(value, list) or not value:
            return f"{_at(here)}: {_json(value)} should be a non-empty array"
        for n, sub in enumerate(value):
            if (problem := _problem(sub, f"{here}/{n}", depth + 1, unknown)) is not None:
                return problem
        return None
    if key == "type":
        return _type_problem(value, here)
    if key == "required":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
        unique = ok and len(set(value)) == len(value)
        return None if unique else f"{_at(here)}: {_json(value)} should be unique strings"
    if key == "enum":
        return None if isinstance(value, list) else f"{_at(here)}: {_json(value)} is not an array"
    if key in STRINGS:
        return None if isinstance(value, str) else f"{_at(here)}: {_json(value)} is not a string"
    if key in COUNTS:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
        return None if ok else f"{_at(here)}: {_json(value)} should be a whole number >= 0"
    if key in NUMBERS or key == "multipleOf":
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and (key != "multipleOf" or value > 0)
        return None if ok else f"{_at(here)}: {_json(value)} is not a valid {key}"
    if key in FLAGS:
        ok = isinstance(value, bool)
        return None if ok else f"{_at(here)}: {_json(value)} is not of type 'boolean'"
    if key == "examples":
        return None if isinstance(value, list) else f"{_at(here)}: {_json(value)} is not an array"
    if key not in ANYTHING:  # an annotation, or a keyword only the full check knows
        unknown.append(key)
    return None


def _type_problem(value: Any, here: str) -> str | None:
    names = value if isinstance(value, list) else [value]
    fine = bool(names) and all(isinstance(n, str) and n in TYPES for n in names)
    if fine and len(set(names)) == len(names):
        return None
    return f"{_at(here)}: {_json(value)} is not a JSON Schema type ({', '.join(sorted(TYPES))})"


def _full_check(schema: Any) -> str | None:
    """jsonschema's own check, for a schema with a keyword the fast one does not know (regex
    keywords and deep nesting were refused on the way)."""
    from jsonschema import Draft202012Validator, SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as err:
        where = "/".join(str(part) for part in err.path)
        return f"not a valid JSON Schema{f' at {where}' if where else ''}: {err.message}"
    except RecursionError:
        return "not a valid JSON Schema: it is nested too deeply"
    return None


def merged_fragment(
    schema: dict[str, Any] | None, fragment: dict[str, Any]
) -> dict[str, Any] | None:
    """`schema` with a card's fragment: its properties added where the deck has none of that
    name (the deck's own win), its required names added; None when `schema` is no object."""
    if schema is None or schema.get("type") != "object":
        return None
    mine = dict(schema.get("properties") or {})
    properties = {**fragment["properties"], **mine}
    required = list(dict.fromkeys([*schema.get("required", []), *fragment.get("required", [])]))
    merged = {**schema, "properties": properties}
    if required:
        merged["required"] = required
    return merged


def _at(where: str) -> str:
    return f" at {where.lstrip('/')}" if where else ""


def _json(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


__all__ = ["merged_fragment", "schema_problem"]
