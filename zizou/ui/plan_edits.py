"""The plan as the user sees and edits it: its items, read from the task state, and each edit
from the sidebar's checklist as the RFC 6902 patch that makes it.

Every edit of an item starts with a `test` of the item's id, so an edit made on a plan the model
changed meanwhile (its steps run in another thread) is refused rather than applied to another
item. Pure: tested without an app.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

PlanAction = Literal["toggle", "block", "edit", "add", "delete"]
Ops = list[dict[str, Any]]
_NUMBERED = re.compile(r"p(\d+)")


@dataclass(frozen=True)
class PlanItem:
    id: str | None
    title: str
    status: str
    note: str = ""

    @property
    def mark(self) -> str:
        from zizou.contracts.task_state import PLAN_MARKS  # not needed by the first frame

        return PLAN_MARKS.get(self.status, PLAN_MARKS["pending"])


def plan_items(value: Mapping[str, Any] | None) -> tuple[PlanItem, ...] | None:
    """The state's plan, item by item; None when the state has no plan (no task state, or a
    project schema without one)."""
    plan = value.get("plan") if isinstance(value, Mapping) else None
    if not isinstance(plan, list):
        return None
    items = []
    for entry in plan:
        entry = entry if isinstance(entry, Mapping) else {}
        ident = entry.get("id")
        title = " ".join(str(entry.get("title") or ident or "(untitled)").split())
        note = entry.get("note")
        items.append(
            PlanItem(
                ident if isinstance(ident, str) else None,
                title,
                str(entry.get("status") or "pending"),
                note if isinstance(note, str) else "",
            )
        )
    return tuple(items)


def _guard(index: int, item: PlanItem) -> Ops:
    """The item at `index` is still the one the user picked."""
    if item.id is None:
        return []
    return [{"op": "test", "path": f"/plan/{index}/id", "value": item.id}]


def toggled(status: str) -> str:
    """Space: a done item is pending again; any other is done."""
    return "pending" if status == "done" else "done"


def blocked(status: str) -> str:
    """`b`: a blocked item is pending again; any other is blocked."""
    return "pending" if status == "blocked" else "blocked"


def status_ops(index: int, item: PlanItem, status: str) -> Ops:
    return [
        *_guard(index, item),
        {"op": "replace", "path": f"/plan/{index}/status", "value": status},
    ]


def title_ops(index: int, item: PlanItem, title: str) -> Ops:
    return [*_guard(index, item), {"op": "replace", "path": f"/plan/{index}/title", "value": title}]


def delete_ops(index: int, item: PlanItem) -> Ops:
    return [*_guard(index, item), {"op": "remove", "path": f"/plan/{index}"}]


def add_ops(items: Sequence[PlanItem], after: int | None, title: str) -> Ops:
    """A new pending item after `after` (None: first), with an id no other item has."""
    at = 0 if after is None else after + 1
    guard = _guard(after, items[after]) if after is not None else []
    new = {"id": new_id(items), "title": title, "status": "pending"}
    return [*guard, {"op": "add", "path": f"/plan/{at}", "value": new}]


def new_id(items: Sequence[PlanItem]) -> str:
    """`p<n>`, one past the highest such id in the plan (and past the count of items)."""
    numbers = [int(m.group(1)) for i in items if i.id and (m := _NUMBERED.fullmatch(i.id))]
    return f"p{max([len(items), *numbers]) + 1}"


__all__ = [
    "Ops",
    "PlanAction",
    "PlanItem",
    "add_ops",
    "blocked",
    "delete_ops",
    "new_id",
    "plan_items",
    "status_ops",
    "title_ops",
    "toggled",
]
