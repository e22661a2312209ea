"""The task state: a JSON value the model keeps current through patches, shown to it at every
step and to the user as the plan.

Its schema is `.zizou/state.schema.json` when the project has one, else the built-in TaskState.
Updates are RFC 6902 JSON Patches (through `jsonpatch`) or RFC 7396 merge patches (models get
pointer paths wrong), applied all or nothing: to a copy, then validated, then committed. The
copy is copy-on-write: each operation copies only the containers on its path, so a patch on a
large state costs what it touches, and every committed value is left as it was (treat values
read from here as read-only). A refusal says which operation or value failed and why, in words
the model can act on.
"""

from __future__ import annotations

import json
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from zizou import confined
from zizou.contracts.json_patches import (
    MAX_OPS,
    MAX_PROBLEMS,
    Refused,
    compact,
    count,
    describe,
    listed,
    merge_changes,
    merge_patch,
    owned,
    patched,
)
from zizou.contracts.schema_ts import (
    DIALECT,
    SchemaError,
    TaskSchema,
    json_copy,
    zero_value,
)
from zizou.errors import PathError

SCHEMA_FILE = ".zizou/state.schema.json"
MAX_SCHEMA_BYTES = 64 * 1024
BUILTIN_SOURCE = "built-in"
MAX_STATE_CHARS = 8_000
SNAPSHOT_EVERY = 50
STATUSES = ("pending", "in_progress", "done", "blocked")
PLAN_MARKS = {"done": "☑", "in_progress": "◐", "pending": "☐", "blocked": "⊘"}


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "description": description}


BUILTIN_SCHEMA: dict[str, Any] = {
    "$schema": DIALECT,
    "title": "TaskState",
    "description": "Your working state for this task, shown to you at every step. Keep it "
    "current with update_state; the user sees the plan and may edit it.",
    "type": "object",
    "properties": {
        "goal": {
            "type": "string",
            "description": "What the user wants, in a sentence or two and in their terms; "
            "update it when they change their mind.",
        },
        "plan": {
            "type": "array",
            "maxItems": 50,
            "description": "The steps to the goal, in order. Mark a step in_progress when you "
            "start it (one at a time) and done once it is finished and checked; a blocked "
            "step says why in its note.",
            "items": {
                "type": "object",
                "properties": {
                    "id": {
                        "type": "string",
                        "description": 'Short and unique, kept when the title changes: "p1".',
                    },
                    "title": {"type": "string", "description": "The step in a few words."},
                    "status": {"type": "string", "enum": list(STATUSES)},
                    "note": {"type": "string", "description": "Why blocked, or what you found."},
                },
                "required": ["id", "title", "status"],
                "additionalProperties": False,
            },
        },
        "notes": _strings(
            "Facts worth keeping for later steps, one short line each: decisions, findings, "
            "commands that work."
        ),
        "questions": _strings(
            "Open questions for the user; ask them in your reply too, and remove each once "
            "it is answered."
        ),
        "files": _strings("Paths of the files that matter here, relative to the project root."),
    },
    "required": ["goal", "plan", "notes", "questions", "files"],
    "additionalProperties": False,
}


def plan_problems(value: Any) -> list[str]:
    """The built-in plan's rules beyond JSON Schema: unique ids, at most one in_progress."""
    plan = value.get("plan") if isinstance(value, dict) else None
    if not isinstance(plan, list):
        return []
    problems: list[str] = []
    seen: dict[str, int] = {}
    active: list[str] = []
    for index, item in enumerate(plan):
        if not isinstance(item, dict):
            continue
        ident = item.get("id")
        if isinstance(ident, str) and ident in seen:
            problems.append(f'/plan/{index}/id: "{ident}" is already the id of /plan/{seen[ident]}')
        elif isinstance(ident, str):
            seen[ident] = index
        if item.get("status") == "in_progress":
            active.append(f'"{ident}"' if isinstance(ident, str) else f"/plan/{index}")
    if len(active) > 1:
        problems.append(
            f"/plan: at most one item may be in_progress, but {active[0]} and {active[1]} both "
            "are: set one of them to pending or done"
        )
    return problems


_BUILTIN: list[TaskSchema] = []


def builtin_schema() -> TaskSchema:
    """The built-in TaskState schema, checked once and shared."""
    if not _BUILTIN:
        _BUILTIN.append(TaskSchema(BUILTIN_SCHEMA, BUILTIN_SOURCE, rules=plan_problems))
    return _BUILTIN[0]


class SchemaUnreadable(SchemaError):
    """The schema file's place is unsafe (a link out of the project, a `.zizou` that is not a
    directory of the project): it is not read, and the built-in schema serves instead."""


def load_schema(root: Path) -> TaskSchema:
    """The project's `.zizou/state.schema.json` (read by fd; a symlink out of the project is
    refused), else the built-in schema. A file that cannot be used is a SchemaError."""
    try:
        path = confined.resolve_unasked(root, SCHEMA_FILE)
        info = confined.stat(root, path)
        if info is None:
            return builtin_schema()
        if not stat.S_ISREG(info.st_mode):
            raise SchemaError(SCHEMA_FILE, "not a regular file")
        data = confined.read_bytes(root, path, MAX_SCHEMA_BYTES)
    except PathError as err:
        raise SchemaUnreadable(SCHEMA_FILE, f"not read: {err}") from err
    try:
        schema = json.loads(data.decode("utf-8-sig"))
    except RecursionError:
        raise SchemaError(SCHEMA_FILE, "nested too deeply to be a schema") from None
    except UnicodeDecodeError as err:
        raise SchemaError(SCHEMA_FILE, f"not UTF-8 text (byte {err.start})") from err
    except json.JSONDecodeError as err:
        raise SchemaError(
            SCHEMA_FILE,
            f"not valid JSON: {err.msg} at line {err.lineno}, column {err.colno}",
            line=err.lineno,
            column=err.colno,
        ) from err
    _check_untrusted(schema)
    try:
        return TaskSchema(schema, SCHEMA_FILE)
    except RecursionError:
        raise SchemaError(
            SCHEMA_FILE, "refers to itself, or is nested, too deeply to be checked"
        ) from None


MAX_SCHEMA_DEPTH = 32  # nested objects and arrays in a project's schema file
_REGEX_KEYWORDS = ("pattern", "patternProperties")


def _check_untrusted(schema: Any) -> None:
    """A project's schema comes with the repository: nothing in it may make zizou hang. It
    is kept shallow, and regex keywords are refused (a pattern with nested repeats would run
    for ever on a value the model writes)."""
    todo: list[tuple[Any, str, int]] = [(schema, "", 0)]
    while todo:
        node, pointer, depth = todo.pop()
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaError(
                SCHEMA_FILE, f"nested more than {MAX_SCHEMA_DEPTH} levels deep", pointer=pointer
            )
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{pointer}/{key}"
                if key in _REGEX_KEYWORDS and not pointer.endswith("/properties"):
                    raise SchemaError(
                        SCHEMA_FILE,
                        f"{here}: zizou does not run regexes from a schema; remove `{key}`",
                        pointer=here,
                    )
                todo.append((value, here, depth + 1))
        elif isinstance(node, list):
            todo += [(item, f"{pointer}/{n}", depth + 1) for n, item in enumerate(node)]


@dataclass(frozen=True)
class PatchResult:
    """`value` is the state after the patch (as before it when refused); `changed_paths` are
    the JSON pointers the patch wrote, empty when nothing changed."""

    ok: bool
    message: str
    value: Mapping[str, Any]
    changed_paths: tuple[str, ...]


@dataclass(frozen=True)
class UserEdit:
    """A change the user made, for the model to hear about at its next step."""

    kind: Literal["patch", "merge", "reset"]
    patch: Any
    changed_paths: tuple[str, ...]

    def text(self) -> str:
        if self.kind == "reset":
            return "reset the state to its zero value"
        return f"{self.kind} {compact(self.patch)}"


class TaskState:
    """The current state value and its schema. Patches are all or nothing and thread-safe;
    `patches_since_snapshot` says when the session should record the whole value again."""

    def __init__(
        self, schema: TaskSchema | None = None, *, max_chars: int = MAX_STATE_CHARS
    ) -> None:
        self.schema = schema or builtin_schema()
        self.max_chars = max_chars
        self.patches_applied = 0
        self.patches_since_snapshot = 0
        self._lock = threading.Lock()
        self._value: dict[str, Any] = self.schema.zero()
        self._json = compact(self._value)
        self._user_edits: list[UserEdit] = []

    @property
    def value(self) -> Mapping[str, Any]:
        """The current value, shared: read it, never change it (see `snapshot`)."""
        return self._value

    def apply_patch(self, ops: Any, source: str = "model") -> PatchResult:
        """Apply RFC 6902 operations (at most 100) all or nothing."""
        with self._lock:
            try:
                owned, candidate, changed = patched(self._value, ops)
            except Refused as err:
                return self._refused(str(err))
            done = [describe(op) for op in owned[:MAX_PROBLEMS]]
            if len(owned) > MAX_PROBLEMS:
                done.append(f"{len(owned) - MAX_PROBLEMS} more")
            message = f"Applied {count(len(owned), 'operation')}"
            message += f": {', '.join(done)}." if done else "."
            edit = UserEdit("patch", owned, changed)
            return self._commit(candidate, changed, edit, source, message)

    def apply_merge(self, obj: Any, source: str = "model") -> PatchResult:
        """Apply an RFC 7396 merge patch: null deletes, objects merge, anything else replaces."""
        with self._lock:
            if not isinstance(obj, dict):
                return self._refused('a merge patch must be an object, such as {"goal": "..."}')
            try:
                patch = owned(obj)
            except Refused as err:
                return self._refused(str(err))
            changed = tuple(dict.fromkeys(merge_changes(self._value, patch, "")))
            candidate = merge_patch(self._value, patch)
            message = f"Merged: {', '.join(changed[:MAX_PROBLEMS]) or 'no change'}."
            edit = UserEdit("merge", patch, changed)
            return self._commit(candidate, changed, edit, source, message)

    def _commit(
        self, candidate: Any, changed: tuple[str, ...], edit: UserEdit, source: str, message: str
    ) -> PatchResult:
        problems, candidate, text = self._checked(candidate)
        if problems:
            return self._refused(listed(problems))
        if text == self._json:
            return PatchResult(True, f"{message} Nothing changed.", self._value, ())
        self._value, self._json = candidate, text
        self.patches_applied += 1
        self.patches_since_snapshot += 1
        if source == "user":
            self._user_edits.append(edit)
        return PatchResult(True, message, candidate, changed)

    def _checked(self, candidate: Any) -> tuple[list[str], Any, str]:
        """The problems with `candidate`, and it in the schema's key order as a value and as
        compact JSON."""
        problems = self.schema.validate(candidate)
        if problems:
            return problems, candidate, ""
        candidate = self._in_schema_order(candidate)
        text = compact(candidate)
        if len(text) <= self.max_chars:
            return [], candidate, text
        size = f"{len(text):,} characters as compact JSON, over the {self.max_chars:,} allowed"
        return [f"the state would be {size}: shorten or remove something"], candidate, text

    def _refused(self, why: str) -> PatchResult:
        return PatchResult(False, f"Not applied: {why}. State unchanged.", self._value, ())

    def _in_schema_order(self, value: dict[str, Any]) -> dict[str, Any]:
        known = list(self.schema.schema.get("properties", {}))
        order = [key for key in known if key in value] + [k for k in value if k not in known]
        return value if list(value) == order else {key: value[key] for key in order}

    def reset(self, source: str = "user") -> None:
        """Back to the zero value; the caller records it as a snapshot."""
        with self._lock:
            self._value = self.schema.zero()
            self._json = compact(self._value)
            self.patches_since_snapshot = 0
            if source == "user":
                self._user_edits.append(UserEdit("reset", None, ("",)))

    def restore(self, value: Any) -> list[str]:
        """Replace the value (from a session's snapshot or a file) if it is valid; else
        return the problems and keep the current value."""
        with self._lock:
            try:
                candidate = owned(value)
            except Refused as err:
                return [str(err)]
            problems, candidate, text = self._checked(candidate)
            if problems:
                return problems
            self._value, self._json = candidate, text
            self.patches_since_snapshot = 0
            self._user_edits.clear()
            return []

    def snapshot(self) -> dict[str, Any]:
        """A deep copy of the value, free to change."""
        value: dict[str, Any] = json_copy(self._value)
        return value

    def mark_snapshot(self) -> None:
        """The session recorded a snapshot: count patches from zero again."""
        self.patches_since_snapshot = 0

    @property
    def snapshot_due(self) -> bool:
        return self.patches_since_snapshot >= SNAPSHOT_EVERY

    def compact_json(self) -> str:
        """The value as compact JSON, keys in the schema's order (what the prompt shows)."""
        return self._json

    def take_user_edits(self) -> list[UserEdit]:
        """The user's edits since the last call, oldest first; the list is cleared."""
        with self._lock:
            edits, self._user_edits = self._user_edits, []
            return edits


# The plan, as the user sees it.


def plan_line(value: Any, width: int = 120) -> str | None:
    """`▸ plan: ☑ done · ◐ current · ☐ next (+3 more)` within `width`; None without a plan."""
    plan = value.get("plan") if isinstance(value, Mapping) else None
    items = [item for item in plan if isinstance(item, Mapping)] if isinstance(plan, list) else []
    if not items:
        return None
    statuses = [item.get("status") for item in items]
    focus = next(
        (i for i, status in enumerate(statuses) if status == "in_progress"),
        next((i for i, status in enumerate(statuses) if status != "done"), len(items) - 1),
    )
    start = max(0, min(focus - 1, len(items) - 3))
    shown = items[start : start + 3]
    rest = len(items) - len(shown)
    head, tail = "▸ plan: ", f" (+{rest} more)" if rest else ""
    marks = [PLAN_MARKS.get(str(item.get("status")), "☐") for item in shown]
    titles = [_title(item) for item in shown]
    room = (
        width - len(head) - len(tail) - sum(len(mark) + 1 for mark in marks) - 3 * (len(shown) - 1)
    )
    titles = _fit(titles, room)
    return head + " · ".join(f"{m} {t}" for m, t in zip(marks, titles, strict=True)) + tail


def _title(item: Mapping[str, Any]) -> str:
    title = " ".join(str(item.get("title") or item.get("id") or "(untitled)").split())
    return title[:200]


def _fit(titles: list[str], room: int) -> list[str]:
    sizes = [len(title) for title in titles]
    while sum(sizes) > room and max(sizes) > 1:
        sizes[sizes.index(max(sizes))] -= 1
    return [t if len(t) <= n else t[: n - 1] + "…" for t, n in zip(titles, sizes, strict=True)]


__all__ = [
    "BUILTIN_SCHEMA", "MAX_OPS", "MAX_STATE_CHARS", "SCHEMA_FILE", "SNAPSHOT_EVERY",
    "PatchResult", "SchemaError", "TaskSchema", "TaskState", "UserEdit", "builtin_schema",
    "compact", "load_schema", "merge_patch", "plan_line", "plan_problems", "zero_value",
]  # fmt: skip
