"""JSON Patch (RFC 6902) and merge patch (RFC 7396) for the task state, applied copy-on-write.

Each operation copies only the containers on its path, so a patch on a large state costs what it
touches and a committed value is never changed. A refusal (`Refused`) says which operation
failed and why, in words the model can act on.
"""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import jsonpointer

from zizou.contracts.schema_ts import escape, json_copy, pointer

MAX_OPS = 100
MAX_PROBLEMS = 5


class Refused(Exception):
    """Why a patch is not applied (the words after "Not applied: ")."""


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def owned(value: Any) -> Any:
    """A copy of a value from outside, owned by the state from here on; not JSON is refused."""
    try:
        return json_copy(value)
    except RecursionError:
        raise Refused("the value is nested too deeply") from None
    except TypeError as err:
        raise Refused(str(err)) from err


def listed(problems: list[str]) -> str:
    more = len(problems) - MAX_PROBLEMS
    tail = [f"and {count(more, 'more problem')}"] if more > 0 else []
    return "; ".join(problems[:MAX_PROBLEMS] + tail)


# JSON Patch, applied copy-on-write.


def patched(value: dict[str, Any], ops: Any) -> tuple[list[Any], Any, tuple[str, ...]]:
    """The operations (copied), the patched value, and the pointers they wrote."""
    if not isinstance(ops, list):
        raise Refused('a patch is a list of operations, such as [{"op": "replace", "path": '
                       '"/goal", "value": "..."}]')  # fmt: skip
    if len(ops) > MAX_OPS:
        raise Refused(f"the patch has {len(ops)} operations, over the {MAX_OPS} allowed: split it")
    ops = owned(ops)
    doc: Any = value
    changed: list[str] = []
    for index, op in enumerate(ops, 1):
        try:
            doc = _apply(doc, op)
        except _PATCH_ERRORS as err:
            raise Refused(f"operation {index}{_label(op)}: {_explain(doc, op, err)}") from err
        if op["op"] != "test":
            changed += [op[key] for key in ("from", "path") if op["op"] == "move" or key == "path"]
    return ops, doc, tuple(dict.fromkeys(changed))


# What a failing operation raises: jsonpatch's own errors, and a few plain ones from paths
# through values of the wrong kind.
_PATCH_ERRORS = (
    jsonpatch.JsonPatchException,
    jsonpointer.JsonPointerException,
    TypeError,
    KeyError,
    IndexError,
)


def _apply(doc: Any, op: Any) -> Any:
    if not isinstance(op, dict) or not isinstance(op.get("path"), str):
        raise jsonpatch.InvalidJsonPatch('each operation is an object with "op" and "path"')
    kind, path = op.get("op"), op["path"]
    if kind == "move" and isinstance(op.get("from"), str):
        source = op["from"]
        if _missing(doc, source, "from path", whole=True):
            raise jsonpointer.JsonPointerException(f"{source} does not exist")
        moved = jsonpointer.resolve_pointer(doc, source)
        if path.startswith(source + "/"):
            raise jsonpatch.JsonPatchConflict("a value cannot move into itself")
        if path == source:
            return doc
        doc = _apply(doc, {"op": "remove", "path": source})
        return _apply(doc, {"op": "add", "path": path, "value": moved})
    if kind != "test":
        doc = _own_path(doc, path)
    return jsonpatch.JsonPatch([op]).apply(doc, in_place=True)


def _own_path(doc: Any, path: str) -> Any:
    """`doc` with fresh copies of the containers from the root to the parent of `path`, so
    applying an operation in place changes only those copies."""
    if not path.startswith("/") or not isinstance(doc, dict | list):
        return doc
    root = _shallow(doc)
    node = root
    for part in _parts(path)[:-1]:
        child = _child(node, part)
        if not isinstance(child, dict | list):
            break  # the path goes nowhere: the operation fails without writing
        child = _shallow(child)
        node[int(part) if isinstance(node, list) else part] = child
        node = child
    return root


def _shallow(node: Any) -> Any:
    return dict(node) if isinstance(node, dict) else list(node)


def _parts(path: str) -> list[str]:
    return [part.replace("~1", "/").replace("~0", "~") for part in path[1:].split("/")]


def _child(node: Any, part: str) -> Any:
    if isinstance(node, dict):
        return node.get(part)
    if _is_index(part) and int(part) < len(node):
        return node[int(part)]
    return None


def _is_index(part: str) -> bool:
    return part.isdigit() and part.isascii() and (part == "0" or not part.startswith("0"))


def describe(op: dict[str, Any]) -> str:
    source = f"{op['from']} to " if op.get("op") in ("move", "copy") and "from" in op else ""
    return f"{op.get('op')} {source}{op['path']}"


def _label(op: Any) -> str:
    if not isinstance(op, dict) or not isinstance(op.get("path"), str):
        return ""
    return f" ({describe(op)})"


def _explain(doc: Any, op: Any, err: Exception) -> str:
    if isinstance(err, jsonpatch.InvalidJsonPatch):
        return f"not a valid operation ({err}); use add, remove, replace, move, copy or test"
    kind = op.get("op")
    if kind in ("move", "copy"):
        missing = _missing(doc, op.get("from"), "from path", whole=True)
        if missing:
            return missing
    missing = _missing(doc, op["path"], "path", whole=kind in ("remove", "replace", "test"))
    if missing:
        return missing
    if isinstance(err, jsonpatch.JsonPatchTestFailed):
        found = jsonpointer.resolve_pointer(doc, op["path"])
        return f"the test failed: {op['path']} is {_brief(found)}, not {_brief(op.get('value'))}"
    return str(err)


def _missing(doc: Any, path: Any, label: str, *, whole: bool) -> str | None:
    """Why `path` does not lead anywhere in `doc` (`whole`: the last part must exist too, as
    for remove and replace; otherwise it may be a new key or an append)."""
    if not isinstance(path, str) or (path and not path.startswith("/")):
        example = f"/{path}" if isinstance(path, str) else "/plan/0/status"
        return f'the {label} must be a JSON pointer starting with "/", such as "{example}"'
    parts = _parts(path) if path else []
    node = doc
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        where = pointer(parts[:depth])[1:] or "the state"
        if isinstance(node, list):
            if last and not whole and part == "-":
                return None
            size = len(node) + (1 if last and not whole else 0)
            if not _is_index(part) or int(part) >= size:
                tail = f"; use /{where}/- to append" if last and not whole else ""
                return f"the {label} does not exist ({where} has {count(len(node), 'item')}{tail})"
            node = node[int(part)] if int(part) < len(node) else None
        elif isinstance(node, dict):
            if part not in node:
                if last and not whole:
                    return None
                keys = ", ".join(list(node)[:8]) or "none"
                return f"the {label} does not exist ({where} has no key {part!r}; keys: {keys})"
            node = node[part]
        else:
            return f"the {label} does not exist ({where} is {_brief(node)}, not an object or array)"
    return None


def _brief(value: Any) -> str:
    text = compact(value)
    return text if len(text) <= 60 else text[:59] + "…"


def count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


# Merge patches (RFC 7396).


def merge_patch(target: Any, patch: Any) -> Any:
    """`target` with `patch` merged in; `target` itself is not changed (untouched parts are
    shared with it)."""
    if not isinstance(patch, dict):
        return patch
    merged = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = merge_patch(merged.get(key), value)
    return merged


def merge_changes(target: Any, patch: dict[str, Any], prefix: str) -> list[str]:
    changed = []
    for key, value in patch.items():
        here = f"{prefix}/{escape(key)}"
        present = isinstance(target, dict) and key in target
        old = target[key] if present else None
        if isinstance(value, dict) and isinstance(old, dict):
            changed += merge_changes(old, value, here)
        elif (value is None and present) or (value is not None and (not present or old != value)):
            changed.append(here)
    return changed
