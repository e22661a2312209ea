"""A server's tools as providers accept them: names and JSON schemas.

A tool is offered as `mcp__SERVER__TOOL`. Providers take function names of at most 64 of
`[A-Za-z0-9_-]`: other characters become `_`, and a name too long is cut, with a short hash of
the whole name added when two tools would otherwise meet (a name is never given twice).

Input schemas are written for the JSON Schema validators of servers, not for providers, which
reject some keywords (Gemini and OpenAI refuse `$schema`, `$ref` into `$defs`, `examples`,
`if`/`then`...). `for_provider` inlines `$ref`s (a recursive one becomes an open object),
drops the keywords providers reject, and makes sure the top is an object with `properties`.
The call's arguments are still checked against the server's own schema (`check_schema`).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

MAX_NAME_CHARS = 64
PREFIX = "mcp"
SEPARATOR = "__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# Keywords that one provider or another refuses in a function's parameters (or that only
# cost tokens), removed at every depth.
REJECTED = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$comment",
        "$dynamicAnchor",
        "$dynamicRef",
        "$vocabulary",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependentRequired",
        "dependencies",
        "unevaluatedProperties",
        "unevaluatedItems",
        "patternProperties",
        "propertyNames",
        "$defs",
        "definitions",
    }
)
_DATA = frozenset({"default", "const", "enum"})  # values, not schemas: kept as they are
MAX_DEPTH = 24  # deeper than this, a schema is cut to an open value


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """The name `tool` of `server` is offered under: unique among `taken` (and added to it)."""
    full = f"{PREFIX}{SEPARATOR}{server}{SEPARATOR}{_UNSAFE.sub('_', tool) or 'tool'}"
    name = full[:MAX_NAME_CHARS]
    if name in taken or len(full) > MAX_NAME_CHARS:
        digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()
        for size in range(6, 17, 2):
            name = f"{full[: MAX_NAME_CHARS - size - 1]}_{digest[:size]}"
            if name not in taken:
                break
    taken.add(name)
    return name


def for_provider(schema: Any) -> dict[str, Any]:
    """`schema` (a tool's input schema) as providers accept it."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    defs = {**_defs(schema, "definitions"), **_defs(schema, "$defs")}
    cleaned = _clean(schema, defs, (), 0)
    if not isinstance(cleaned, dict):
        cleaned = {}
    cleaned["type"] = "object"
    if not isinstance(cleaned.get("properties"), dict):
        cleaned["properties"] = {}
    required = cleaned.get("required")
    if required is not None and not (
        isinstance(required, list) and all(isinstance(name, str) for name in required)
    ):
        del cleaned["required"]
    return cleaned


def _defs(schema: dict[str, Any], key: str) -> dict[str, Any]:
    found = schema.get(key)
    return (
        {f"#/{key}/{name}": value for name, value in found.items()}
        if isinstance(found, dict)
        else {}
    )


def _clean(node: Any, defs: dict[str, Any], seen: tuple[str, ...], depth: int) -> Any:
    if depth > MAX_DEPTH:
        return {}
    if isinstance(node, list):
        return [_clean(item, defs, seen, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen or ref not in defs:  # recursive, or pointing elsewhere: an open value
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return _clean(rest, defs, seen, depth + 1) if rest else {}
        merged = {**defs[ref], **{k: v for k, v in node.items() if k != "$ref"}}
        return _clean(merged, defs, (*seen, ref), depth + 1)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in REJECTED or (key == "title" and isinstance(value, str)):
            continue
        if key in _DATA:
            out[key] = value
        elif key == "properties" and isinstance(value, dict):
            out[key] = {
                str(name): _clean(sub, defs, seen, depth + 1) for name, sub in value.items()
            }
        else:
            out[key] = _clean(value, defs, seen, depth + 1)
    return out


def summary_of(description: str, limit: int) -> str:
    """A tool's line in the prompt's tool guide: the first sentence of its description, cut
    to `limit` characters."""
    text = " ".join(description.split())
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0] if text else ""
    if len(first) <= limit:
        return first
    return first[: limit - 1].rstrip() + "…"


__all__ = ["MAX_NAME_CHARS", "REJECTED", "for_provider", "summary_of", "tool_name"]
