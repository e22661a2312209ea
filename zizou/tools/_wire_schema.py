"""The JSON schema of a tool's arguments as the model gets it: pydantic's schema, made plain.

The schemas go out with every request, so what they carry is paid for at every step. Pydantic
writes `$ref`s to `$defs` (some providers reject them), a `title` on every model and field, and
an optional field as `anyOf: [X, null]` with `default: null`. None of that tells the model
anything it can use: a field left out of `required` is already optional, and leaving it out is
how a model says "none"; `additionalProperties: true` is what an object allows anyway. So
references are inlined, titles and that default dropped, and an optional field is offered in its
own type only.
"""

from __future__ import annotations

from typing import Any

_NULL = {"type": "null"}


def wire_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (pydantic's, for a tool's Args) as it is sent to the model."""
    defs = schema.get("$defs", {})
    plain = _plain({k: v for k, v in schema.items() if k != "$defs"}, defs)
    assert isinstance(plain, dict)
    return plain


def _plain(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_plain(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        merged = {
            **defs[ref.removeprefix("#/$defs/")],
            **{k: v for k, v in node.items() if k != "$ref"},
        }
        return _plain(merged, defs)
    # A "title" whose value is a string is pydantic's; a property named "title" is a dict (and
    # so is a property named "additionalProperties").
    plain = {
        key: _plain(value, defs)
        for key, value in node.items()
        if (key != "title" or not isinstance(value, str))
        and (key != "additionalProperties" or value is not True)
    }
    return _without_null(plain)


def _without_null(node: dict[str, Any]) -> dict[str, Any]:
    """`{"anyOf": [X, {"type": "null"}], "default": null, ...}` as `{...X, ...}`."""
    branches = node.get("anyOf")
    if (
        not isinstance(branches, list)
        or _NULL not in branches
        or node.get("default", 0) is not None
    ):
        return node
    typed = [branch for branch in branches if branch != _NULL]
    if len(typed) != 1 or not isinstance(typed[0], dict):
        return node
    rest = {k: v for k, v in node.items() if k not in ("anyOf", "default")}
    return {**typed[0], **rest}


__all__ = ["wire_schema"]
