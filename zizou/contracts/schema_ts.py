"""A state schema: JSON Schema 2020-12 as the source of truth, checked when loaded, with its
zero value, its annotated TypeScript (what the model reads) and fast validation.

Validation goes through a checker compiled from the schema for the keywords a state uses (type,
enum, const, properties, required, items, bounds, anyOf, allOf, local `$ref`s); a subschema with
any other keyword is handed to jsonschema whole. jsonschema alone builds a new validator for
every subschema it descends into (~4 µs each), ~25 ms for a 1,000-item list at every update.
The compiled checker is never more lenient than jsonschema, and when it refuses a value
jsonschema runs to name the problems, so jsonschema's verdict is the one that counts.
Schemas are one document: references are local (`#/$defs/...`) and `$id` appears only at the root.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from operator import ge, gt, le, lt
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

if TYPE_CHECKING:  # jsonschema loads with the first schema checked, not with the contracts
    import jsonschema
    from jsonschema import Draft202012Validator

DIALECT = "https://json-schema.org/draft/2020-12/schema"
Check = Callable[[Any], bool]
Rules = Callable[[Any], list[str]]

_SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
_SCHEMA_ONE = (
    "items", "additionalProperties", "contains", "propertyNames", "not", "if", "then", "else",
    "unevaluatedItems", "unevaluatedProperties", "contentSchema",
)  # fmt: skip
_SCHEMA_LISTS = ("prefixItems", "allOf", "anyOf", "oneOf")


class SchemaError(ValueError):
    """A state schema that cannot be used. The message names the file and where the problem
    is: line and column for JSON syntax, a JSON pointer for the schema itself."""

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        line: int | None = None,
        column: int | None = None,
        pointer: str | None = None,
    ) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.line = line
        self.column = column
        self.pointer = pointer


class TaskSchema:
    """A checked state schema. `rules` adds checks JSON Schema cannot express (the built-in
    plan's); `source` is "built-in" or the file's path relative to the project."""

    def __init__(self, schema: Any, source: str, *, rules: Rules | None = None) -> None:
        check_schema(schema, source)
        self.schema: dict[str, Any] = schema
        self.source = source
        self._rules = rules
        from jsonschema import Draft202012Validator

        self._validator = Draft202012Validator(schema)
        self._fast = _Compiler(schema, self._validator).compile(schema)
        try:
            self._zero: dict[str, Any] = zero_value(schema, schema)
        except _Recursive as err:
            why = f'no zero value: {err} contains itself; give it a "default"'
            raise SchemaError(source, why) from err
        if problems := self.validate(self._zero):
            where = problems[0].split(": ", 1)[0]
            why = f'its zero value is not valid ({problems[0]}): give {where} a "default"'
            raise SchemaError(source, why, pointer=where)
        self._typescript: str | None = None

    def zero(self) -> dict[str, Any]:
        """A fresh copy of the zero value."""
        value: dict[str, Any] = json_copy(self._zero)
        return value

    def validate(self, value: Any) -> list[str]:
        """What is wrong with `value`, each problem naming its JSON pointer; [] when valid."""
        problems = [] if self._fast(value) else _problems(self._validator, value)
        if self._rules is not None:
            problems += self._rules(value)
        return problems

    def typescript(self, name: str = "TaskState") -> str:
        """The schema as short annotated TypeScript."""
        if self._typescript is None:
            self._typescript = _TypeScript(self.schema).render(name)
        return self._typescript


# Checking a schema.


def check_schema(schema: Any, source: str) -> None:
    """Refuse what zizou cannot use: not 2020-12, invalid (regexes included), a root that is
    not an object, a reference it cannot follow."""
    if not isinstance(schema, dict):
        raise SchemaError(source, 'the schema must be a JSON object such as {"type": "object"}')
    declared = schema.get("$schema")
    if declared is not None and str(declared).rstrip("#") != DIALECT:
        raise SchemaError(
            source,
            f'$schema is {declared!r}; zizou reads JSON Schema 2020-12: set "$schema" to '
            f'"{DIALECT}" or remove it',
            pointer="/$schema",
        )
    import jsonschema

    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as err:
        where = pointer(err.absolute_path)
        raise SchemaError(
            source, f"invalid JSON Schema at {where or '/'}: {err.message}", pointer=where
        ) from err
    if schema.get("type") != "object":
        raise SchemaError(source, 'the root must have "type": "object"', pointer="/type")
    for node, where in subschemas(schema, ""):
        _check_node(schema, node, where, source)


def _check_node(root: dict[str, Any], node: Any, where: str, source: str) -> None:
    if not isinstance(node, dict):
        return
    if where and "$id" in node:
        raise SchemaError(source, f"$id at {where}: keep the schema one document", pointer=where)
    ref = node.get("$ref")
    if isinstance(ref, str) and resolve_ref(root, ref) is None:
        why = (
            "names nothing in this file"
            if ref.startswith("#/") or ref == "#"
            else "is not in this file (zizou follows only references such as #/$defs/Item)"
        )
        raise SchemaError(source, f"$ref {ref!r} at {where or '/'} {why}", pointer=f"{where}/$ref")


def subschemas(node: Any, where: str) -> Iterator[tuple[Any, str]]:
    """`node` and every schema inside it, with their JSON pointers."""
    yield node, where
    if not isinstance(node, dict):
        return
    for key in _SCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, dict):
            for name, child in children.items():
                yield from subschemas(child, f"{where}/{key}/{escape(name)}")
    for key in _SCHEMA_ONE:
        if key in node:
            yield from subschemas(node[key], f"{where}/{key}")
    for key in _SCHEMA_LISTS:
        children = node.get(key)
        if isinstance(children, list):
            for index, child in enumerate(children):
                yield from subschemas(child, f"{where}/{key}/{index}")


def resolve_ref(root: dict[str, Any], ref: str) -> Any:
    """The schema a local `$ref` names (`#` or `#/json/pointer`), None when it names none."""
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        return None
    node: Any = root
    for raw in ref[2:].split("/"):
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer(parts: Sequence[str | int] | Any) -> str:
    """The JSON pointer of a path ("" for the root)."""
    return "".join(f"/{escape(part)}" for part in parts)


def json_copy(value: Any) -> Any:
    """A deep copy of a JSON value; anything else (a tuple, NaN, a non-string key) is a
    TypeError naming it."""
    if isinstance(value, dict):
        if not all(isinstance(key, str) for key in value):
            raise TypeError(f"object keys must be strings: {list(value)!r}")
        return {key: json_copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_copy(item) for item in value]
    if (
        value is None
        or isinstance(value, str | int)
        or (isinstance(value, float) and math.isfinite(value))
    ):
        return value
    raise TypeError(f"{value!r} is not a JSON value")


# Problems, as the model reads them.


def _problems(validator: Draft202012Validator, value: Any) -> list[str]:
    found = []
    for error in validator.iter_errors(value):
        problem = f"{pointer(error.absolute_path) or '(root)'}: {_message(error)}"
        if problem not in found:
            found.append(problem)
    return found


def _message(error: jsonschema.ValidationError) -> str:
    kind, limit, instance = error.validator, error.validator_value, error.instance
    sized = {"maxItems": "items", "minItems": "items", "maxLength": "characters"}
    sized["minLength"] = "characters"
    if kind in sized and isinstance(instance, list | str):
        bound = f"at most {limit} allowed" if kind.startswith("max") else f"at least {limit} needed"
        return f"has {len(instance)} {sized[kind]}; {bound}"
    message = str(error.message)
    return message if len(message) <= 200 else message[:199] + "…"


# Zero values.


class _Recursive(Exception):
    pass


def zero_value(node: Any, root: dict[str, Any], refs: tuple[str, ...] = ()) -> Any:
    """The value a fresh state starts from: `default` first, then const, the first enum
    member, '' / 0 / false / [] / null, and objects with every property's zero value."""
    if not isinstance(node, dict):
        return None
    if "default" in node:
        return json_copy(node["default"])
    if "const" in node:
        return json_copy(node["const"])
    if node.get("enum"):
        return json_copy(node["enum"][0])
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in refs:
            raise _Recursive(ref)
        return zero_value(resolve_ref(root, ref), root, (*refs, ref))
    kind = next((kind for kind in types_of(node) if kind != "null"), None)
    if kind is None:
        branches = node.get("anyOf") or node.get("oneOf") or node.get("allOf")
        return zero_value(branches[0], root, refs) if branches else None
    if kind == "object":
        return _zero_object(node, root, refs)
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": []}.get(kind)


def _zero_object(node: dict[str, Any], root: dict[str, Any], refs: tuple[str, ...]) -> Any:
    value: dict[str, Any] = {}
    required = node.get("required", [])
    for name, child in node.get("properties", {}).items():
        try:
            value[name] = zero_value(child, root, refs)
        except _Recursive:
            if name in required:
                raise  # an optional property that would recurse is left out
    return value


def types_of(node: dict[str, Any]) -> list[str]:
    """The node's types as a list, inferred from its keywords when it names none."""
    kind = node.get("type")
    if isinstance(kind, str):
        return [kind]
    if isinstance(kind, list):
        return [k for k in kind if isinstance(k, str)]
    if "properties" in node or "additionalProperties" in node:
        return ["object"]
    if "items" in node or "prefixItems" in node:
        return ["array"]
    return []


# The compiled checker.

# Keywords the compiled checker handles; `format` only annotates (jsonschema runs without a
# format checker). A subschema with any other validating keyword goes to jsonschema whole.
_FAST = frozenset((
    "type", "enum", "const", "properties", "required", "additionalProperties", "items",
    "minItems", "maxItems", "minLength", "maxLength", "pattern", "minimum",
    "maximum", "exclusiveMinimum", "exclusiveMaximum", "minProperties", "maxProperties",
    "allOf", "anyOf", "$ref", "format",
))  # fmt: skip
_JSON_TYPES: dict[str, Check] = {
    "string": lambda x: isinstance(x, str),
    "integer": lambda x: (
        (isinstance(x, int) and not isinstance(x, bool))
        or (isinstance(x, float) and x.is_integer())
    ),
    "number": lambda x: isinstance(x, int | float) and not isinstance(x, bool),
    "boolean": lambda x: isinstance(x, bool),
    "null": lambda x: x is None,
    "object": lambda x: isinstance(x, dict),
    "array": lambda x: isinstance(x, list),
}
_CONSTANT: dict[bool, Check] = {True: lambda x: True, False: lambda x: False}


class _Compiler:
    """Turns each subschema into one closure; `$ref`s compile once, cycles included."""

    def __init__(self, root: dict[str, Any], validator: Draft202012Validator) -> None:
        self.root = root
        self.validator = validator
        self.done: dict[int, Check] = {}

    def compile(self, node: Any) -> Check:
        known = self.done.get(id(node))
        if known is not None:
            return known
        slot: list[Check] = []
        self.done[id(node)] = lambda value: slot[0](value)  # for a cycle back to this node
        check = self._build(node)
        slot.append(check)
        self.done[id(node)] = check
        return check

    def _build(self, node: Any) -> Check:
        if not isinstance(node, dict):
            return _CONSTANT[node is not False]
        literals = [*node.get("enum", ()), *([node["const"]] if "const" in node else ())]
        known = type(self.validator).VALIDATORS
        if any(key in known and key not in _FAST for key in node) or (
            not all(isinstance(literal, str) for literal in literals)
        ):  # jsonschema's equality (true is not 1, 1 is 1.0) is its own: leave it those
            return self.validator.evolve(schema=node).is_valid  # type: ignore[no-any-return]
        checks = [*self._generic(node), *_objects(node, self), *_arrays(node, self)]
        checks += [*_strings(node), *_numbers(node)]
        if len(checks) <= 1:
            return checks[0] if checks else _CONSTANT[True]
        return lambda value: all(check(value) for check in checks)

    def _generic(self, node: dict[str, Any]) -> Iterator[Check]:
        folded = (node.get("type") == "object" and _OBJECT_KEYS & node.keys()) or (
            node.get("type") == "string" and {"enum", "const"} & node.keys()
        )  # the type check is part of the object check and the string members'
        if "type" in node and not folded:
            tests = [_JSON_TYPES[kind] for kind in types_of(node)]
            yield tests[0] if len(tests) == 1 else lambda x: any(test(x) for test in tests)
        if "const" in node:  # strings only, for enum too (see _build)
            yield _member_of([node["const"]])
        if "enum" in node:
            yield _member_of(node["enum"])
        if isinstance(node.get("$ref"), str):
            yield self.compile(resolve_ref(self.root, node["$ref"]))
        if "allOf" in node:
            yield from (self.compile(part) for part in node["allOf"])
        if "anyOf" in node:
            branches = [self.compile(part) for part in node["anyOf"]]
            yield lambda x: any(branch(x) for branch in branches)


def _member_of(strings: list[str]) -> Check:
    members = frozenset(strings)
    return lambda x: isinstance(x, str) and x in members


_OBJECT_KEYS = frozenset(
    ("properties", "required", "additionalProperties", "minProperties", "maxProperties")
)


def _objects(node: dict[str, Any], compiler: _Compiler) -> Iterator[Check]:
    if not _OBJECT_KEYS & node.keys():
        return
    props = [(name, compiler.compile(sub)) for name, sub in node.get("properties", {}).items()]
    names = frozenset(node.get("properties", {}))
    required = frozenset(node.get("required", ()))
    extra = node.get("additionalProperties", True)
    extra_check = compiler.compile(extra) if extra not in (True, False) else None
    low, high = node.get("minProperties", 0), node.get("maxProperties", math.inf)
    only_objects = node.get("type") == "object"  # the type check, folded in here

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return not only_objects
        if not low <= len(value) <= high or not value.keys() >= required:
            return False
        if extra is False and not value.keys() <= names:
            return False
        for name, sub in props:
            if name in value and not sub(value[name]):
                return False
        if extra_check is not None:
            return all(extra_check(value[name]) for name in value.keys() - names)
        return True

    yield check


def _arrays(node: dict[str, Any], compiler: _Compiler) -> Iterator[Check]:
    if not {"items", "minItems", "maxItems"} & node.keys():
        return
    each = compiler.compile(node.get("items", True))
    low, high = node.get("minItems", 0), node.get("maxItems", math.inf)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        return low <= len(value) <= high and all(each(item) for item in value)

    yield check


def _strings(node: dict[str, Any]) -> Iterator[Check]:
    if not {"minLength", "maxLength", "pattern"} & node.keys():
        return
    low, high = node.get("minLength", 0), node.get("maxLength", math.inf)
    search = re.compile(node.get("pattern", "")).search  # as jsonschema: re.search
    yield lambda x: not isinstance(x, str) or (low <= len(x) <= high and bool(search(x)))


def _numbers(node: dict[str, Any]) -> Iterator[Check]:
    bounds = [(compare, node[key]) for key, compare in _BOUNDS.items() if key in node]
    number = _JSON_TYPES["number"]
    if bounds:
        yield lambda x: not number(x) or all(compare(x, bound) for compare, bound in bounds)


_BOUNDS = {"minimum": ge, "maximum": le, "exclusiveMinimum": gt, "exclusiveMaximum": lt}


# TypeScript.


class _TypeScript:
    """Renders a schema as `interface Name { ... }` plus a `type` for each `$defs` entry it
    references; constraints and defaults go in the doc comments; the rest is `unknown`."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.names: dict[str, str] = {"#": "TaskState"}  # $ref -> type name, in the order met

    def render(self, name: str) -> str:
        self.names["#"] = name
        body = self.type_of(self.root, "")
        head = _doc(self.root, "", notes=False)
        if body.startswith("{"):
            lines = [*head, f"interface {name} {body}"]
        else:
            lines = [*head, f"type {name} = {body};"]
        done = 1
        while done < len(self.names):  # rendering a definition may name more of them
            ref, alias = list(self.names.items())[done]
            target = resolve_ref(self.root, ref)
            lines += [*_doc(target, "", notes=False), f"type {alias} = {self.type_of(target, '')};"]
            done += 1
        return "\n".join(lines)

    def type_of(self, node: Any, indent: str) -> str:
        if node is False:
            return "never"
        if not isinstance(node, dict):
            return "unknown"
        if "const" in node:
            text = _literal(node["const"])
        elif isinstance(node.get("enum"), list) and node["enum"]:
            text = _union([_literal(member) for member in node["enum"]])
        else:
            text = self._combined(node, indent)
        if node.get("nullable") is True and text not in ("unknown", "null"):
            text = _union([text, "null"])
        return text

    def _combined(self, node: dict[str, Any], indent: str) -> str:
        members = []
        if isinstance(node.get("$ref"), str):
            members.append(self._ref(node["$ref"]))
        members += [self.type_of(part, indent) for part in node.get("allOf", [])]
        for key in ("anyOf", "oneOf"):
            if isinstance(node.get(key), list):
                members.append(_union([self.type_of(part, indent) for part in node[key]]))
        kinds = types_of(node)
        bare_object = kinds == ["object"] and not node.get("properties")
        bare_object = bare_object and not isinstance(node.get("additionalProperties"), dict)
        if kinds and not (bare_object and members):
            members.append(_union([self._typed(kind, node, indent) for kind in kinds]))
        members = [member for member in members if member != "unknown"]
        if not members:
            return "unknown"
        if len(members) == 1:
            return members[0]
        return " & ".join(f"({m})" if " | " in m and not m.startswith("{") else m for m in members)

    def _ref(self, ref: str) -> str:
        if resolve_ref(self.root, ref) is None:
            return "unknown"
        if ref not in self.names:
            alias = re.sub(r"\W", "_", unquote(ref.rsplit("/", 1)[-1]))
            alias = alias if re.match(r"[A-Za-z_]", alias) else f"_{alias}"
            while alias in self.names.values():
                alias += "_"
            self.names[ref] = alias
        return self.names[ref]

    def _typed(self, kind: str, node: dict[str, Any], indent: str) -> str:
        if kind == "array":
            return self._array(node, indent)
        if kind == "object":
            return self._object(node, indent)
        simple = {"string": "string", "integer": "number", "number": "number"}
        return simple.get(kind, kind if kind in ("boolean", "null") else "unknown")

    def _array(self, node: dict[str, Any], indent: str) -> str:
        item = self.type_of(node.get("items", True), indent)
        return f"{item}[]" if re.fullmatch(r"[\w.]+", item) else f"Array<{item}>"

    def _object(self, node: dict[str, Any], indent: str) -> str:
        props: dict[str, Any] = node.get("properties", {})
        extra = node.get("additionalProperties")
        extra_type = self.type_of(extra, indent) if isinstance(extra, dict) and extra else None
        if not props:
            return f"Record<string, {extra_type or 'unknown'}>"
        inner = indent + "  "
        required = set(node.get("required", []))
        lines = ["{"]
        for name, sub in props.items():
            optional = "" if name in required else "?"
            lines += _doc(sub, inner)
            lines.append(f"{inner}{_key(name)}{optional}: {self.type_of(sub, inner)};")
        if extra_type:
            lines.append(f"{inner}[key: string]: {extra_type};")
        return "\n".join([*lines, indent + "}"])


def _doc(node: Any, indent: str, *, notes: bool = True) -> list[str]:
    if not isinstance(node, dict):
        return []
    parts = []
    description = node.get("description")
    if isinstance(description, str) and description.strip():
        parts.append(" ".join(description.split()).rstrip("."))
    if notes:
        parts += _notes(node)
    if not parts:
        return []
    text = "; ".join(parts).replace("*/", "*\\/")
    return [f"{indent}/** {text} */"]


def _notes(node: dict[str, Any]) -> list[str]:
    notes = ["integer"] if "integer" in types_of(node) else []
    if isinstance(node.get("format"), str):
        notes.append(f"format: {node['format']}")
    words = {
        "minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<",
        "minLength": "at least {} chars", "maxLength": "at most {} chars",
        "minItems": "at least {} items", "maxItems": "at most {} items",
        "pattern": "pattern: {}",
    }  # fmt: skip
    for key, word in words.items():
        if key in node:
            notes.append(word.format(node[key]) if "{}" in word else f"{word} {node[key]}")
    if "default" in node:
        default = json.dumps(node["default"], ensure_ascii=False)
        notes.append(f"default: {default if len(default) <= 60 else default[:59] + '…'}")
    return notes


def _literal(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _union(members: list[str]) -> str:
    unique = list(dict.fromkeys(members))
    if "unknown" in unique:
        return "unknown"
    return " | ".join(unique)


def _key(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_$][\w$]*", name) else json.dumps(name)


__all__ = [
    "DIALECT", "SchemaError", "TaskSchema", "check_schema", "json_copy", "pointer",
    "resolve_ref", "subschemas", "types_of", "zero_value",
]  # fmt: skip
